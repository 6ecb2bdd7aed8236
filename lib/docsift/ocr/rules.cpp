#include "docsift/ocr/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include "docsift/error.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

std::string_view builtin_rules_text();  // generated from configs/fields/ocr-rules.yaml

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool has_letters(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// Where `phrase` occurs in `text` (both lower case) as whole words, from `from`.
std::size_t find_phrase(const std::string& text, const std::string& phrase, std::size_t from = 0) {
  for (std::size_t at = text.find(phrase, from); at != std::string::npos; at = text.find(phrase, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]) || !word_char(phrase.front());
    const std::size_t end = at + phrase.size();
    const bool ends = end == text.size() || !word_char(text[end]) || !word_char(phrase.back());
    if (starts && ends) return at;
  }
  return std::string::npos;
}

std::vector<std::string> strings(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsSequence() || node.size() == 0) throw ConfigError(where + ": expected a non-empty list");
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(lowercase(item.as<std::string>()));
  return out;
}

// One label found on a line: which rule, and where its value starts and ends.
struct Hit {
  std::size_t rule;
  std::size_t at, end;        // the label
  std::size_t value_end = 0;  // the next label on the line, or the line's end
};

std::vector<Hit> label_hits(const std::string& lowered, const Rules& rules) {
  std::vector<Hit> all;
  for (std::size_t r = 0; r < rules.fields.size(); ++r) {
    for (const auto& label : rules.fields[r].labels) {
      for (std::size_t at = find_phrase(lowered, label); at != std::string::npos;
           at = find_phrase(lowered, label, at + 1)) {
        all.push_back({r, at, at + label.size()});
      }
    }
  }
  // Longest first at each place; then drop every hit overlapping one kept.
  std::sort(all.begin(), all.end(), [](const Hit& a, const Hit& b) {
    return a.end - a.at != b.end - b.at ? a.end - a.at > b.end - b.at : a.at < b.at;
  });
  std::vector<Hit> kept;
  for (const auto& h : all) {
    const bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const Hit& k) { return h.at < k.end && k.at < h.end; });
    if (!overlaps) kept.push_back(h);
  }
  std::sort(kept.begin(), kept.end(), [](const Hit& a, const Hit& b) { return a.at < b.at; });
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i].value_end = i + 1 < kept.size() ? kept[i + 1].at : lowered.size();
  return kept;
}

std::optional<std::string> parse_kind(const std::string& kind, const std::string& text) {
  if (kind == "abn") return parse_abn(text);
  if (kind == "date") return parse_date(text);
  if (kind == "period") return parse_period(text);
  if (kind == "amount") return parse_amount(text);
  if (kind == "bsb") return parse_bsb(text);
  if (kind == "account") return parse_account(text);
  if (kind == "phone") return parse_phone(text);
  if (kind == "email") return parse_email(text);
  // name: words with letters, not another label's value form.
  const std::string name = clean_text(text);
  if (!has_letters(name) || parse_email(name) || parse_phone(name) || looks_like_address(name)) return std::nullopt;
  return name;
}

const std::set<std::string> kKinds{"abn", "date", "period", "amount", "bsb", "account", "phone", "email", "name"};

// What the rules read: segments, the pieces of a line between gaps wider than kColumnGap line
// heights (so that two columns side by side are read apart), each with its label hits.
constexpr double kColumnGap = 2.0;
// A table word this short and this doubtful (Tesseract's 0-100) is a speck of noise.
constexpr float kSpeckConfidence = 50.0f;

struct Segment {
  std::string text, lowered;
  std::vector<Hit> hits;
  std::size_t line;  // index in page.lines
  int block, top, left, right;
};

std::vector<Segment> segments_of(const Page& page, const Rules& rules) {
  std::vector<Segment> out;
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    const Line& line = page.lines[i];
    const double gap = kColumnGap * std::max(1, line.box.height());
    std::size_t start = 0;
    for (std::size_t k = 1; k <= line.words.size(); ++k) {
      if (k < line.words.size() && line.words[k].box.left - line.words[k - 1].box.right <= gap) continue;
      Segment seg{{}, {}, {}, i, line.block, line.box.top, line.words[start].box.left, line.words[k - 1].box.right};
      for (std::size_t w = start; w < k; ++w) seg.text += (seg.text.empty() ? "" : " ") + line.words[w].text;
      seg.lowered = lowercase(seg.text);
      seg.hits = label_hits(seg.lowered, rules);
      out.push_back(std::move(seg));
      start = k;
    }
  }
  return out;
}

}  // namespace

Rules load_rules(const std::string& source) {
  constexpr std::string_view kBuiltin = "builtin:";
  YAML::Node root;
  try {
    if (source.rfind(kBuiltin, 0) == 0) {
      if (source != "builtin:ocr-rules") throw ConfigError(source + ": unknown built-in rules (builtin:ocr-rules is)");
      root = YAML::Load(std::string(builtin_rules_text()));
    } else {
      root = YAML::LoadFile(source);
    }
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the OCR rules file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  Rules rules;
  try {
    for (const auto& t : root["document_types"]) {
      rules.document_types.emplace_back(t["type"].as<std::string>(), strings(t["words"], source + ": document_types"));
    }
    std::set<std::string> seen;
    for (const auto& f : root["fields"]) {
      const std::string field = f.first.as<std::string>(), where = source + ": fields." + field;
      if (!seen.insert(field).second) throw ConfigError(where + ": listed twice");
      const std::string kind = f.second["kind"].as<std::string>("");
      if (!kKinds.count(kind)) throw ConfigError(where + ": kind '" + kind + "' is not one of abn, date, period, amount, bsb, account, phone, email, name");
      rules.fields.push_back({field, kind, strings(f.second["labels"], where + ".labels")});
    }
    rules.table_description = strings(root["table"]["description"], source + ": table.description");
    rules.table_quantity = strings(root["table"]["quantity"], source + ": table.quantity");
    rules.table_price = strings(root["table"]["price"], source + ": table.price");
    rules.banks = strings(root["banks"], source + ": banks");
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg + " (see configs/fields/ocr-rules.yaml for the layout)");
  }
  if (rules.document_types.empty() || rules.fields.empty()) {
    throw ConfigError(source + ": needs document_types and fields (see configs/fields/ocr-rules.yaml)");
  }
  return rules;
}

Extraction extract_fields(const Page& page, const Rules& rules, const std::vector<std::string>& field_names) {
  Extraction out;
  for (const auto& line : page.lines) out.text += line.text() + "\n";
  const std::vector<Segment> r = segments_of(page, rules);
  const std::size_t n = r.size();
  std::map<std::string, std::string> found;
  std::map<std::string, std::size_t> found_at;  // field → segment it came from
  const auto set = [&](const std::string& field, const std::string& value, std::size_t segment) {
    if (!found.count(field)) {
      found[field] = value;
      found_at[field] = segment;
    }
  };

  // Document type: heading words in the top third.
  std::optional<std::size_t> heading;
  std::string doc_type;
  for (std::size_t i = 0; i < n && !heading; ++i) {
    if (r[i].top > page.height / 3) break;
    // A heading word inside a label ("invoice" in "Invoice date") is not a heading.
    const auto heading_word = [&](const std::string& w) {
      const std::size_t at = find_phrase(r[i].lowered, w);
      return at != std::string::npos && std::none_of(r[i].hits.begin(), r[i].hits.end(), [&](const Hit& h) {
               return h.at <= at && at + w.size() <= h.end;
             });
    };
    for (const auto& [type, words] : rules.document_types) {
      if (std::any_of(words.begin(), words.end(), heading_word)) {
        doc_type = type;
        heading = i;
        break;
      }
    }
  }
  if (heading) set("DOCUMENT_TYPE", doc_type, *heading);
  const bool statement = doc_type == "BANK STATEMENT";

  // The segment below `i`: on the next line, overlapping it horizontally.
  const auto below = [&](std::size_t i) -> std::optional<std::size_t> {
    for (std::size_t k = i + 1; k < n && r[k].line <= r[i].line + 1; ++k) {
      if (r[k].line == r[i].line + 1 && r[k].left < r[i].right && r[i].left < r[k].right) return k;
    }
    return std::nullopt;
  };
  // Labelled values: the first that passes its kind's check, top to bottom.
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& h : r[i].hits) {
      const LabelRule& rule = rules.fields[h.rule];
      if (found.count(rule.field)) continue;
      std::string value = r[i].text.substr(h.end, h.value_end - h.end);
      std::size_t from = i;
      const bool empty = !has_letters(value) && std::none_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      });
      if (empty) {
        // "Bill to:" with the value on the line below (up to that segment's first label).
        const auto next = below(i);
        if (!next) continue;
        const auto& hits = r[*next].hits;
        value = r[*next].text.substr(0, hits.empty() ? std::string::npos : hits.front().at);
        from = *next;
      }
      if (auto v = parse_kind(rule.kind, value)) set(rule.field, *v, from);
    }
  }
  // An ABN without its label: any group of 11 digits that passes the checksum.
  if (!found.count("ABN") && !statement) {
    for (std::size_t i = 0; i < n; ++i) {
      if (auto v = parse_abn(r[i].text)) {
        set("ABN", *v, i);
        out.checks["abn_by_checksum"] = true;
        break;
      }
    }
  }

  // The line items, from whole lines (a row's cells are far apart): a header row with a
  // description column and a quantity or price column, then rows in the same block (or the next,
  // when the header stands alone) until a line with a label.
  const auto any_word = [](const std::string& text, const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(), [&](const auto& w) { return find_phrase(text, w) != std::string::npos; });
  };
  // A table ends at a line that starts with a summary label (an amount or a date: "Subtotal",
  // "Closing balance"); other labels inside a row ("Phone bill") are descriptions.
  std::vector<bool> summary(page.lines.size(), false);
  for (const auto& seg : r) {
    if (!seg.hits.empty() && seg.hits.front().at == 0) {
      const std::string& kind = rules.fields[seg.hits.front().rule].kind;
      if (kind == "amount" || kind == "date" || kind == "period") summary[seg.line] = true;
    }
  }
  std::optional<std::size_t> table;
  for (std::size_t i = 0; i < page.lines.size() && !table; ++i) {
    const std::string l = lowercase(page.lines[i].text());
    if (any_word(l, rules.table_description) && (any_word(l, rules.table_quantity) || any_word(l, rules.table_price))) {
      table = i;
    }
  }
  if (table) {
    std::vector<std::string> descriptions, quantities, prices;
    const int block = page.lines[*table].block;
    const bool alone = *table + 1 < page.lines.size() && page.lines[*table + 1].block != block;
    for (std::size_t i = *table + 1; i < page.lines.size(); ++i) {
      if (page.lines[i].block != block && !(alone && page.lines[i].block == block + 1)) break;
      if (summary[i]) break;
      // From the right: the price (an amount), then a whole-number quantity; the rest describes.
      // Specks read as short words with little confidence ("E)", "z") are dropped.
      std::vector<std::string> words;
      for (const auto& w : page.lines[i].words) {
        if (!std::any_of(w.text.begin(), w.text.end(), word_char) && w.text != "&") continue;
        if (w.text.size() <= 3 && w.confidence < kSpeckConfidence) continue;
        words.push_back(w.text);
      }
      std::optional<std::string> price;
      if (!words.empty() && (price = parse_amount(words.back()))) words.pop_back();
      std::optional<std::string> quantity;
      if (!words.empty() && price && (words.back() == "l" || words.back() == "I" || words.back() == "|")) {
        words.back() = "1";  // a lone 1 before the price, read as a letter
      }
      if (!words.empty() && words.back().size() <= 4 && std::all_of(words.back().begin(), words.back().end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
          })) {
        quantity = words.back();
        words.pop_back();
      }
      std::string description;
      for (const auto& w : words) description += (description.empty() ? "" : " ") + w;
      description = clean_text(description);
      if (description.empty() || !has_letters(description)) continue;
      descriptions.push_back(description);
      if (quantity) quantities.push_back(*quantity);
      if (price) prices.push_back(*price);
    }
    const auto joined = [](const std::vector<std::string>& items) {
      std::string s;
      for (const auto& item : items) s += (s.empty() ? "" : " | ") + item;
      return s;
    };
    if (!descriptions.empty()) found["DESCRIPTIONS"] = joined(descriptions);
    if (!statement && !quantities.empty()) found["QUANTITIES"] = joined(quantities);
    if (!statement && !prices.empty()) found["PRICES"] = joined(prices);
  }

  // Where the payer's lines are: the block of the payer's (or account holder's) label.
  std::optional<int> payer_block;
  for (const char* field : {"PAYER_NAME", "ACCOUNT_HOLDER"}) {
    if (found_at.count(field) && !payer_block) payer_block = r[found_at[field]].block;
  }
  // The supplier: the first line of the top that is not the heading or a value of its own kind.
  std::optional<int> supplier_block;
  if (!statement) {
    for (std::size_t i = 0; i < n && i < 6; ++i) {
      if (heading && i == *heading) continue;
      if (payer_block && r[i].block == *payer_block) break;
      const std::string& t = r[i].text;
      if (!r[i].hits.empty() || !has_letters(t) || parse_abn(t) || parse_phone(t) || parse_website(t) ||
          parse_email(t) || looks_like_address(t) || parse_date(t)) {
        continue;
      }
      set("SUPPLIER", clean_text(t), i);
      supplier_block = r[i].block;
      break;
    }
  }
  const auto in_block = [&](std::optional<int> block, std::size_t i) { return block && r[i].block == *block; };
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& t = r[i].text;
    if (in_block(supplier_block, i) && !in_block(payer_block, i)) {
      if (looks_like_address(t)) set("BUSINESS_ADDRESS", clean_text(t), i);
      if (auto v = parse_phone(t)) set("BUSINESS_PHONE", *v, i);
    }
    if (in_block(payer_block, i)) {
      if (looks_like_address(t)) set("PAYER_ADDRESS", clean_text(t), i);
      if (auto v = parse_email(t)) set("PAYER_EMAIL", *v, i);
      if (!statement) {
        if (auto v = parse_phone(t)) set("PAYER_PHONE", *v, i);
      }
    }
    if (!statement) {
      if (auto v = parse_website(t)) set("SUPPLIER_WEBSITE", *v, i);
    }
  }
  // A statement's bank: a known bank's name near the top, else its title line.
  if (statement) {
    for (std::size_t i = 0; i < n && i < 6 && !found.count("BANK_NAME"); ++i) {
      for (const auto& bank : rules.banks) {
        if (find_phrase(r[i].lowered, bank) != std::string::npos) {
          set("BANK_NAME", clean_text(r[i].text), i);
          break;
        }
      }
    }
    if (!found.count("BANK_NAME") && heading && *heading > 0) set("BANK_NAME", clean_text(r[0].text), 0);
  }

  // subtotal + GST = total, where all three were read.
  const auto cents = [&](const char* field) -> std::optional<long long> {
    return found.count(field) ? amount_cents(found[field]) : std::nullopt;
  };
  const auto subtotal = cents("SUBTOTAL"), gst = cents("GST"), total = cents("TOTAL");
  out.checks["sum"] = subtotal && gst && total ? nlohmann::json(std::llabs(*subtotal + *gst - *total) <= 1)
                                               : nlohmann::json(nullptr);
  for (const auto& name : field_names) out.fields[name] = found.count(name) ? found[name] : "N/A";
  return out;
}

}  // namespace docsift::ocr
