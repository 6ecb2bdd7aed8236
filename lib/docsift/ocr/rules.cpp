#include "docsift/ocr/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <string_view>
#include <tuple>

#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

std::string_view builtin_rules_text();  // generated from configs/fields/ocr-rules.yaml

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool has_letters(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// Where `phrase` occurs in `text` (both lower case) as whole words, from `from`.
std::size_t find_phrase(const std::string& text, const std::string& phrase, std::size_t from = 0) {
  for (std::size_t at = text.find(phrase, from); at != std::string::npos;
       at = text.find(phrase, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]) || !word_char(phrase.front());
    const std::size_t end = at + phrase.size();
    const bool ends = end == text.size() || !word_char(text[end]) || !word_char(phrase.back());
    if (starts && ends) return at;
  }
  return std::string::npos;
}

// A word as the fuzzy match compares it: letters and digits only ("(inc" → "inc", "gst)" → "gst").
std::string alnum_of(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (word_char(c) || static_cast<unsigned char>(c) >= 0x80) out += c;
  }
  return out;
}

struct Piece {
  std::string word;  // alnum_of the token
  std::size_t begin, end;
};

std::vector<Piece> pieces_of(const std::string& text) {
  std::vector<Piece> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > b) {
      std::string w = alnum_of(std::string_view(text).substr(b, i - b));
      if (!w.empty()) out.push_back({std::move(w), b, i});
    }
  }
  return out;
}

// One label word against one OCR word: equal, or one edit apart when the label word has 5 letters
// or more (shorter words would match too much: "tax" and "tex", "date" and "data").
bool word_matches(const std::string& label_word, const std::string& word) {
  if (label_word == word) return true;
  return label_word.size() >= 5 && edit_distance(label_word, word, 1) <= 1;
}

}  // namespace

namespace {

// A possessive after a label's last word ("CUSTOMER'S COPY", "Merchant’s copy") makes it a
// word of something else, not a label with its value.
bool possessive_at(const std::string& lowered, std::size_t end) {
  for (const std::string_view mark : {std::string_view("'s"), std::string_view("\u2019s")}) {
    if (lowered.compare(end, mark.size(), mark) == 0) {
      const std::size_t after = end + mark.size();
      return after >= lowered.size() || !word_char(lowered[after]);
    }
  }
  return false;
}

// find_label over the text's words split once (label_hits tries some 500 labels on a segment).
std::vector<std::pair<std::size_t, std::size_t>> find_label_in(const std::string& lowered,
                                                               const std::vector<Piece>& have,
                                                               const std::string& label, bool fuzzy) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t at = find_phrase(lowered, label); at != std::string::npos;
       at = find_phrase(lowered, label, at + 1)) {
    if (!possessive_at(lowered, at + label.size())) out.emplace_back(at, at + label.size());
  }
  if (!fuzzy) return out;
  const std::vector<Piece> want = pieces_of(label);
  if (want.empty() ||
      std::none_of(want.begin(), want.end(), [](const Piece& p) { return p.word.size() >= 5; }))
    return out;
  for (std::size_t i = 0; i + want.size() <= have.size(); ++i) {
    bool all = true;
    for (std::size_t k = 0; k < want.size() && all; ++k)
      all = word_matches(want[k].word, have[i + k].word);
    if (!all) continue;
    const std::size_t b = have[i].begin, e = have[i + want.size() - 1].end;
    // The last word read with its possessive ("customer's" against "customer").
    const std::string_view last_word =
        std::string_view(lowered).substr(have[i + want.size() - 1].begin, e - have[i + want.size() - 1].begin);
    const auto ends_with = [&](std::string_view mark) {
      return last_word.size() > mark.size() && last_word.substr(last_word.size() - mark.size()) == mark;
    };
    if (possessive_at(lowered, e) || ends_with("'s") || ends_with("\u2019s")) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const auto& r) { return r.first < e && b < r.second; }))
      out.emplace_back(b, e);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> find_label(const std::string& lowered,
                                                            const std::string& label, bool fuzzy) {
  return find_label_in(lowered, pieces_of(lowered), label, fuzzy);
}

namespace {

std::vector<std::string> strings(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsSequence() || node.size() == 0)
    throw ConfigError(where + ": expected a non-empty list");
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(lowercase(item.as<std::string>()));
  return out;
}

// One label found on a line: which rule, and where its value starts and ends.
struct Hit {
  std::size_t rule;
  std::size_t at, end;        // the label
  int strength = 0;           // the label's, for TOTAL
  std::size_t value_end = 0;  // the next label on the line, or the line's end
  bool fuzzy = false;         // matched only with an edit ("T0TAL"): evidence for the value's confidence
};

std::vector<Hit> label_hits(const std::string& lowered, const Rules& rules) {
  std::vector<Hit> all;
  const std::vector<Piece> words = pieces_of(lowered);
  for (std::size_t r = 0; r < rules.fields.size(); ++r) {
    const LabelRule& rule = rules.fields[r];
    for (std::size_t l = 0; l < rule.labels.size(); ++l) {
      // Misread labels are looked for where a misreading costs a value: amounts and dates. A name
      // label read fuzzily would eat names ("Supplies" is one edit from "supplier").
      const bool fuzzy = rule.kind != "name";
      for (const auto& [at, end] : find_label_in(lowered, words, rule.labels[l], fuzzy)) {
        const bool edited = alnum_of(lowered.substr(at, end - at)) != alnum_of(rule.labels[l]);
        all.push_back({r, at, end, rule.strength[l], 0, edited});
      }
    }
  }
  // Longest first at each place; then drop every hit overlapping one kept.
  std::sort(all.begin(), all.end(), [](const Hit& a, const Hit& b) {
    return a.end - a.at != b.end - b.at ? a.end - a.at > b.end - b.at : a.at < b.at;
  });
  std::vector<Hit> kept;
  for (const auto& h : all) {
    const bool overlaps = std::any_of(kept.begin(), kept.end(),
                                      [&](const Hit& k) { return h.at < k.end && k.at < h.end; });
    if (!overlaps) kept.push_back(h);
  }
  std::sort(kept.begin(), kept.end(), [](const Hit& a, const Hit& b) { return a.at < b.at; });
  // "Total RM Incl. of GST 11.80": the tax word qualifies the total before it; it is not a label
  // of its own whose value would end the total's.
  for (std::size_t i = 0; i + 1 < kept.size(); ++i) {
    const std::string& field = rules.fields[kept[i].rule].field;
    const std::string between = lowered.substr(kept[i].end, kept[i + 1].at - kept[i].end);
    // Likewise a payment word qualifies a payment line: "Change (Cash) : 0.70", "Payment (Cash)".
    const std::string& next = rules.fields[kept[i + 1].rule].field;
    const bool qualifier =
        ((field == "TOTAL" || field == "SUBTOTAL" || field == "_NOT_TOTAL") && next == "GST") ||
        ((field == "_CHANGE" || field == "_TENDERED") && next == "_TENDERED");
    if (qualifier && between.size() <= 16 && find_amounts(between, rules.lexicon).empty()) {
      kept[i].end = kept[i + 1].end;
      kept.erase(kept.begin() + static_cast<long>(i) + 1);
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i)
    kept[i].value_end = i + 1 < kept.size() ? kept[i + 1].at : lowered.size();
  return kept;
}

std::optional<std::string> parse_kind(const std::string& kind, const std::string& text,
                                      const Lexicon& lexicon, DateOrder order) {
  if (kind == "abn") return parse_abn(text);
  if (kind == "date") {
    if (auto d = parse_date(text, lexicon, order)) return d;
    // A labelled date whose first separator OCR lost ("Date: 1303/2018", 13/03/2018). Only under
    // a date label: "1303/2018" alone is as likely an invoice number.
    static const std::regex kJoined(R"((^|[^\d])(\d{2})(\d{2})([/.-])(\d{4})([^\d]|$))");
    std::smatch m;
    if (!std::regex_search(text, m, kJoined)) return std::nullopt;
    return parse_date(m[2].str() + m[4].str() + m[3].str() + m[4].str() + m[5].str(), lexicon, order);
  }
  if (kind == "period") return parse_period(text, lexicon, order);
  if (kind == "amount") return parse_amount(text, lexicon);
  if (kind == "bsb") return parse_bsb(text);
  if (kind == "account") return parse_account(text);
  if (kind == "phone") return parse_phone(text);
  if (kind == "email") return parse_email(text);
  // name: words with letters, not another label's value form.
  const std::string name = clean_text(text);
  if (!has_letters(name) || parse_email(name) || parse_phone(name) || looks_like_address(name))
    return std::nullopt;
  return name;
}

const std::set<std::string> kKinds{"abn",     "date",  "period", "amount", "bsb",
                                   "account", "phone", "email",  "name"};

// A seller's name as printed, without its registration number ("AEON CO. (M) BHD (126926-H)",
// "Dion Realties Sdn Bhd (Co. No:20154-T)") or a lead-in ("OWN BY: CHEF LEE SDN BHD").
std::string name_of(const std::string& text) {
  static const std::regex kRegistration(R"(\([^()]*\d{3,}[^()]*(\)|$)|\S*\d{4,}\S*)");
  // A sender line: "Hetzner Online GmbH • Industriestr. 25 • 91710 Gunzenhausen".
  static const std::regex kSeparator(R"( (•|·|●|\||-|–) )");
  std::smatch sep;
  const std::string first = std::regex_search(text, sep, kSeparator) ? sep.prefix().str() : text;
  std::string name = std::regex_replace(first, kRegistration, "");
  if (const auto colon = name.rfind(':'); colon != std::string::npos) name = name.substr(colon + 1);
  // Tesseract reads a printed Y with its serifs as the yen sign ("MR. D.I.¥."), or as both
  // ("D.I.Y¥."); no seller's name holds one.
  for (std::size_t at; (at = name.find("\u00a5")) != std::string::npos;) {
    name.replace(at, 2, at > 0 && name[at - 1] == 'Y' ? "" : "Y");
  }
  return clean_text(name);
}

}  // namespace

std::string repair_name(const std::string& name, const Rules& rules) {
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find(' ', start);
    if (end == std::string::npos) end = name.size();
    std::string word = name.substr(start, end - start);
    // Dotted initials: single characters each followed by a dot, capitals and at least one digit.
    bool initials = word.size() >= 4, digit = false;
    for (std::size_t i = 0; initials && i < word.size(); ++i) {
      const char c = word[i];
      if (i % 2 == 1) initials = c == '.';
      else initials = std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
      digit = digit || std::isdigit(static_cast<unsigned char>(c));
    }
    if (initials && digit) {
      for (std::size_t i = 0; i < word.size(); i += 2) {
        static const std::string kDigits = "0158", kLetters = "OISB";
        if (const auto at = kDigits.find(word[i]); at != std::string::npos) word[i] = kLetters[at];
      }
    }
    // A word of trade misread by one letter; only letters, so "(KE)" or "D.I.Y." stay as they are.
    const bool letters = std::all_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    if (letters && word.size() >= 6) {
      const std::string lowered = casefold(word);
      if (std::find(rules.business_words.begin(), rules.business_words.end(), lowered) == rules.business_words.end()) {
        const std::string* match = nullptr;
        int matches = 0;
        for (const auto& w : rules.business_words) {
          if (edit_distance(lowered, w, 1) <= 1) match = &w, ++matches;
        }
        if (matches == 1) {
          const bool upper = std::all_of(word.begin(), word.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
          std::string fixed = *match;
          for (std::size_t i = 0; i < fixed.size(); ++i) {
            const bool up = upper || (i == 0 && std::isupper(static_cast<unsigned char>(word[0])));
            if (up) fixed[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(fixed[i])));
          }
          word = fixed;
        }
      }
    }
    out += (out.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out;
}

namespace {

// A postcode: four or five digits on their own.
const std::regex kPostcode(R"((^|[^\d])\d{4,5}([^\d]|$))");

// A rounding moves a bill by less than one unit of its currency: a larger amount on a rounding
// line is a misread (the "0.92" of a "0.02") or the rounded total itself ("Rounding RM 45.35").
constexpr long long kMaxRounding = 50;

// A line read with less confidence than this (Tesseract's 0-100) is not taken for a name.
constexpr double kNameConfidence = 55.0;

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
  int height = 0;           // the median word's: a speck or a '|' does not make a line prominent
  double confidence = 100;  // the words' mean (Tesseract's 0-100)
};

std::vector<Segment> segments_of(const Page& page, const Rules& rules) {
  std::vector<Segment> out;
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    const Line& line = page.lines[i];
    const double gap = kColumnGap * std::max(1, line.box.height());
    std::size_t start = 0;
    for (std::size_t k = 1; k <= line.words.size(); ++k) {
      if (k < line.words.size() && line.words[k].box.left - line.words[k - 1].box.right <= gap)
        continue;
      Segment seg{{},
                  {},
                  {},
                  i,
                  line.block,
                  line.box.top,
                  line.words[start].box.left,
                  line.words[k - 1].box.right};
      std::vector<int> heights;
      double confidence = 0;
      for (std::size_t w = start; w < k; ++w) {
        seg.text += (seg.text.empty() ? "" : " ") + line.words[w].text;
        // A descender ("p", "y") or a bracket makes a word's box taller than its letters.
        const std::string& t = line.words[w].text;
        const bool tall = t.find_first_of("gjpqy()[]{}|,;") != std::string::npos;
        heights.push_back(tall ? line.words[w].box.height() * 4 / 5 : line.words[w].box.height());
        confidence += line.words[w].confidence;
      }
      std::nth_element(heights.begin(), heights.begin() + static_cast<long>(heights.size() / 2),
                       heights.end());
      seg.height = heights[heights.size() / 2];
      seg.confidence = confidence / static_cast<double>(k - start);
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
      if (source != "builtin:ocr-rules")
        throw ConfigError(source + ": unknown built-in rules (builtin:ocr-rules is)");
      root = YAML::Load(std::string(builtin_rules_text()));
    } else {
      root = YAML::LoadFile(source);
    }
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the OCR rules file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) +
                      ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) {
    throw ConfigError(source + ": expected a mapping at the top (document_types, fields, total, ...), as in "
                               "configs/fields/ocr-rules.yaml; is this the OCR rules file?");
  }
  Rules rules;
  try {
    for (const auto& t : root["document_types"]) {
      rules.document_types.emplace_back(t["type"].as<std::string>(),
                                        strings(t["words"], source + ": document_types"));
    }
    std::set<std::string> seen;
    for (const auto& f : root["fields"]) {
      const std::string field = f.first.as<std::string>(), where = source + ": fields." + field;
      if (!seen.insert(field).second) throw ConfigError(where + ": listed twice");
      if (field == "TOTAL" || field.front() == '_')
        throw ConfigError(where + ": TOTAL's labels go under total: (strong, plain, weak)");
      const std::string kind = f.second["kind"].as<std::string>("");
      if (!kKinds.count(kind))
        throw ConfigError(
            where + ": kind '" + kind +
            "' is not one of abn, date, period, amount, bsb, account, phone, email, name");
      auto labels = strings(f.second["labels"], where + ".labels");
      rules.fields.push_back({field, kind, labels, std::vector<int>(labels.size(), 0)});
    }
    // TOTAL and its helpers, ranked by extract_fields.
    const YAML::Node total = root["total"];
    LabelRule t{"TOTAL", "amount", {}, {}};
    for (const auto& [key, strength] :
         {std::pair{"strong", 3}, std::pair{"plain", 2}, std::pair{"weak", 1}}) {
      for (auto& label : strings(total[key], source + ": total." + key)) {
        t.labels.push_back(std::move(label));
        t.strength.push_back(strength);
      }
    }
    rules.fields.push_back(std::move(t));
    for (const auto& [key, field, kind] : {std::tuple{"not_total", "_NOT_TOTAL", "none"},
                                           std::tuple{"tendered", "_TENDERED", "amount"},
                                           std::tuple{"change", "_CHANGE", "amount"}}) {
      auto labels = strings(total[key], source + ": total." + key);
      rules.fields.push_back({field, kind, labels, std::vector<int>(labels.size(), 0)});
      // A card payment: tendered, strength 1 (charged exactly). Optional, for rules files that
      // predate it.
      if (std::string_view(key) == "tendered" && total["card"]) {
        for (auto& label : strings(total["card"], source + ": total.card")) {
          rules.fields.back().labels.push_back(std::move(label));
          rules.fields.back().strength.push_back(1);
        }
      }
    }
    rules.total.tax_summary = strings(total["tax_summary"], source + ": total.tax_summary");
    rules.total.rounding = strings(total["rounding"], source + ": total.rounding");
    rules.company_forms = strings(root["company_forms"], source + ": company_forms");
    rules.not_supplier = strings(root["not_supplier"], source + ": not_supplier");
    rules.address_words = strings(root["address_words"], source + ": address_words");
    rules.regions = strings(root["regions"], source + ": regions");
    for (const auto& w : strings(root["business_words"], source + ": business_words")) rules.business_words.push_back(casefold(w));
    const YAML::Node months = root["months"];
    if (!months || !months.IsSequence() || months.size() != 12)
      throw ConfigError(source + ": months: expected 12 lists, January first");
    for (std::size_t m = 0; m < 12; ++m) {
      for (const auto& name :
           strings(months[m], source + ": months[" + std::to_string(m + 1) + "]")) {
        rules.lexicon.months[m].push_back(casefold(name));
      }
    }
    for (const auto& c : root["currencies"]) {
      const std::string written = c["write"].as<std::string>("");
      if (written.empty()) throw ConfigError(source + ": currencies: every entry needs write:");
      std::vector<std::string> marks;
      for (const auto& m : strings(c["marks"], source + ": currencies." + written + ".marks"))
        marks.push_back(casefold(m));
      rules.lexicon.currencies.emplace_back(written, std::move(marks));
    }
    rules.table_description = strings(root["table"]["description"], source + ": table.description");
    rules.table_quantity = strings(root["table"]["quantity"], source + ": table.quantity");
    rules.table_price = strings(root["table"]["price"], source + ": table.price");
    rules.banks = strings(root["banks"], source + ": banks");
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg +
                      " (see configs/fields/ocr-rules.yaml for the layout)");
  }
  if (rules.document_types.empty() || rules.fields.empty()) {
    throw ConfigError(source +
                      ": needs document_types and fields (see configs/fields/ocr-rules.yaml)");
  }
  return rules;
}

namespace {

// One page's fields, found step by step (extract_fields says in which order); each step reads the
// segments and what the steps before it found.
class FieldFinder {
 public:
  FieldFinder(const Page& page, const Rules& rules, DateOrderRule date_order)
      : page(page), rules(rules), r(segments_of(page, rules)), n(r.size()) {
    decide_date_order(date_order);
    read_page_money();
    mark_totals_context();
  }

  Extraction run(const std::vector<std::string>& field_names) {
    Extraction out;
    for (const auto& line : page.lines) out.text += line.text() + "\n";
    document_type();
    labelled_values();
    choose_total(out.checks);
    date_by_position(out.checks);
    abn_by_checksum(out.checks);
    line_items();
    supplier();
    business_address();
    contacts();
    bank_name();
    sum_check(out.checks);
    for (const auto& name : field_names) out.fields[name] = found.count(name) ? found[name] : "N/A";
    for (const auto& [name, at] : found_at)
      if (found.count(name)) out.confidence[name] = r[at].confidence;
    // A total the page's own sums vouch for is as sure as a reading gets (take_second_reading
    // keeps it over a reading whose sums do not agree).
    if (total_vouched && out.confidence.count("TOTAL")) out.confidence["TOTAL"] = 100;
    for (const auto& [name, at] : found_at) {
      if (found.count(name)) out.evidence[name] = evidence_of(name, found[name], at);
    }
    // The address is read from the lines under the seller's, and is found at the seller's segment:
    // its box is its own lines' words (what a reviewer's report draws). Its word confidences stay
    // the seller line's, which the calibration was fitted on (bench/confidence/README.md).
    if (const auto e = out.evidence.find("BUSINESS_ADDRESS"); e != out.evidence.end() && !address_segments.empty()) {
      e->second.box = words_box(address_segments);
    }
    for (const auto& [name, value] : found) {  // the lists: read from table rows, not one segment
      if (found_at.count(name) || !evidence.count(name)) continue;
      out.evidence[name] = evidence.at(name);
      out.evidence[name].exact = page.exact;
    }
    return out;
  }

 private:
  // Document type: heading words in the top third.
  void document_type() {
    for (std::size_t i = 0; i < n && !heading; ++i) {
      if (r[i].top > page.height / 3) break;
      // A heading word inside a label ("invoice" in "Invoice date") is not a heading.
      const auto heading_word = [&](const std::string& w) {
        const std::size_t at = find_phrase(r[i].lowered, w);
        return at != std::string::npos &&
               std::none_of(r[i].hits.begin(), r[i].hits.end(),
                            [&](const Hit& h) { return h.at <= at && at + w.size() <= h.end; });
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
    statement = doc_type == "BANK STATEMENT";
  }

  // Numeric dates: day first unless the rule or the page says otherwise.
  void decide_date_order(DateOrderRule date_order) {
    order = date_order == DateOrderRule::Mdy ? DateOrder::Mdy : DateOrder::Dmy;
    if (date_order == DateOrderRule::Auto) {
      int day_first = 0, month_first = 0;
      for (const auto& seg : r) {
        for (const auto& d : find_dates(seg.text, rules.lexicon)) {
          day_first += d.day_first_only ? 1 : 0;
          month_first += d.month_first_only ? 1 : 0;
        }
      }
      if (month_first > day_first) order = DateOrder::Mdy;
    }
  }

  // The page's currency: the mark printed most often with its amounts, for amounts printed bare.
  // And a page that prints cents prints them on its total too: a bare whole number there is noise.
  void read_page_money() {
    {
      std::map<std::string, int> marks;
      for (const auto& seg : r) {
        for (const auto& a : find_amounts(seg.text, rules.lexicon)) {
          if (!a.currency.empty()) ++marks[a.currency];
          with_cents += a.has_cents ? 1 : 0;
        }
      }
      int best = 0;
      for (const auto& [mark, count] : marks) {
        if (count > best) best = count, page_currency = mark;
      }
    }
  }

  // Lines of a tax summary table (a total there is the tax base, not the bill's total), and the
  // first line that rounds the total.
  void mark_totals_context() {
    tax_summary.assign(page.lines.size(), false);
    rounds.assign(page.lines.size(), false);
    for (std::size_t i = 0; i < page.lines.size(); ++i) {
      const std::string l = lowercase(page.lines[i].text());
      const auto says = [&](const std::vector<std::string>&
                                phrases) {  // as labels are matched: misread letters too
        return std::any_of(phrases.begin(), phrases.end(),
                           [&](const auto& w) { return !find_label(l, w).empty(); });
      };
      rounds[i] = says(rules.total.rounding);
      if (!rounding_line && rounds[i]) {
        rounding_line = i;
        for (const auto& a : find_amounts(page.lines[i].text(), rules.lexicon)) {
          if (a.has_cents && a.cents <= kMaxRounding) rounding_amount = a.cents;
        }
      }
      if (says(rules.total.tax_summary)) {
        for (std::size_t k = i; k < page.lines.size() && k <= i + 6; ++k) tax_summary[k] = true;
      }
    }
  }

  // Labelled values: the first that passes its kind's check, top to bottom. TOTAL and the
  // payment lines are gathered as candidates and ranked by choose_total.
  void labelled_values() {
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& h : r[i].hits) {
        const LabelRule& rule = rules.fields[h.rule];
        if (rule.kind == "none") continue;
        const bool ranked =
            rule.field == "TOTAL" || rule.field == "_TENDERED" || rule.field == "_CHANGE";
        // Nothing below the rounding line is before rounding: a subtotal's label there ("NET
        // TOTAL 7.40" under "ROUNDING ADJ -0.02") gives the bill's total.
        if (rule.field == "SUBTOTAL" && rounding_line && r[i].line > *rounding_line) {
          for (const auto& [value, from] : value_of(i, h)) {
            if (const auto a = money(value, true); a && a->cents > kMaxRounding) {
              totals.push_back({*a, 2, from});
              break;
            }
          }
          continue;
        }
        if (!ranked && found.count(rule.field)) {
          // A second subtotal below the first and larger ("SUB TOTAL 169.00", a service charge
          // and tax, then "NET TOTAL 174.9"): a running total after them, a weak candidate for
          // the bill's total.
          if (rule.field == "SUBTOTAL" && found_at["SUBTOTAL"] < i) {
            const auto first = cents("SUBTOTAL");
            for (const auto& [value, from] : value_of(i, h)) {
              if (const auto a = money(value, true); a && first && a->cents > *first) {
                totals.push_back({*a, 1, from});
                break;
              }
            }
          }
          continue;
        }
        for (const auto& [value, from] : value_of(i, h)) {
          if (ranked) {
            // A label vouches for a whole amount ("Rs 1939", "Totaal 56").
            const auto a = money(value, true);
            if (!a || (a->cents == 0 && rule.field == "TOTAL"))
              continue;  // "Total 0.00": a tax summary's line
            if (rule.field == "TOTAL" && rounds[r[i].line] && a->cents <= kMaxRounding)
              continue;  // "Rounding Adj 0.02": the rounding, not the rounded total
            auto& list = rule.field == "TOTAL"       ? totals
                         : rule.field == "_TENDERED" ? tendered
                                                     : change;
            list.push_back({*a, h.strength, from, h.fuzzy});
            break;
          }
          if (auto v = parse(rule, value)) {
            if (!found.count(rule.field)) label_fuzzy[rule.field] = h.fuzzy;
            set(rule.field, *v, from);
            if (rule.kind == "date" || rule.kind == "period") other_dates.emplace_back(from, i);
            break;
          }
        }
      }
    }
  }

  // What the bill comes to after its rounding line ("Sub-total 88.97", "Rounding Adj -0.02"): the
  // subtotal, with its tax where the tax was read, plus or minus the rounding line's amount (the
  // minus sign is often lost), or, where OCR left that amount unread, rounded to the nearest 5
  // cents as cash is (Malaysia, Australia, Switzerland). Empty on a page with no rounding line.
  std::vector<long long> rounded_sums(std::optional<long long> sub, std::optional<long long> tax) const {
    std::vector<long long> out;
    if (!rounding_line || !sub) return out;
    for (const long long base : {*sub, tax ? *sub + *tax : -1}) {
      if (base <= 0) continue;
      if (rounding_amount) {
        out.push_back(base + *rounding_amount);
        out.push_back(base - *rounding_amount);
      } else {
        out.push_back((base + 2) / 5 * 5);
      }
    }
    return out;
  }

  // TOTAL: the label's strength, then the checks, then the largest, then the lowest.
  void choose_total(nlohmann::json& checks) {
    std::optional<long long> paid;  // tendered - change
    if (!tendered.empty() && !change.empty() &&
        tendered.back().amount.cents >= change.back().amount.cents) {
      paid = tendered.back().amount.cents - change.back().amount.cents;
    }
    // A card payment has no change: what was tendered was the total.
    // (-1: none; a plain value, as GCC misreads an optional's use in the lambda below.)
    const long long tendered_exact = !tendered.empty() && change.empty() ? tendered.back().amount.cents : -1;
    // What was paid, as two printed figures (or a payment with no change) say.
    const auto was_paid = [&](long long v) { return v == paid.value_or(-1) || v == tendered_exact; };
    // The tendered figure itself: it agrees with itself whenever the change is nil.
    const auto is_tendered = [&](std::size_t segment) {
      return !tendered.empty() && segment == tendered.back().segment;
    };
    const auto sub = cents("SUBTOTAL"), tax = cents("GST");
    // A subtotal's label whose amount is what was paid ("Net Total 21.20", cash 21.20, change
    // 0.00, under "5 Item(s) Total 20.00"): nobody pays a sum before tax, so it is a total too.
    if (sub && found_at.count("SUBTOTAL") && was_paid(*sub) && !is_tendered(found_at["SUBTOTAL"])) {
      if (const auto a = money(r[found_at["SUBTOTAL"]].text, true); a && a->cents == *sub)
        totals.push_back({*a, 1, found_at["SUBTOTAL"]});
    }
    long long largest = 0;
    for (const auto& c : totals) largest = std::max(largest, c.amount.cents);
    const Candidate* best = nullptr;
    long best_score = 0;
    std::vector<std::pair<long long, long>> scored;  // each candidate's amount and score: the winner's margin
    for (const auto& c : totals) {
      long score = c.strength * 100;
      if (tax_summary[r[c.segment].line]) score -= 150;
      // Two printed figures agree with it: the strongest evidence there is. Not the tendered
      // figure itself under a weak label ("Payment Mode Amount" over "CASH 57.10").
      if (!is_tendered(c.segment) && was_paid(c.amount.cents)) score += 250;
      // Rounded: what was paid. Below the rounding line, or on it with a total's own label
      // ("Total After Adj Incl GST 17.70"), not the rounding's ("Rounding Adj -0.02").
      if (rounding_line && (r[c.segment].line > *rounding_line ||
                            (r[c.segment].line == *rounding_line && c.strength >= 2)))
        score += 130;
      if (sub && tax && c.amount.cents == *sub + *tax) score += 40;
      if (c.amount.cents == largest) score += 15;
      if (c.amount.has_cents) score += 10;
      scored.emplace_back(c.amount.cents, score);
      if (!best || score >= best_score) best = &c, best_score = score;
    }
    // A total that no printed sum agrees with, one misread digit away from the one that does
    // ("TOTAL 11.66" under "Sub Total 10.94" and "GST 0.66"; "119.76" over cash 120.06 and change
    // 0.36): the one repair that makes it agree is what was printed (bench/ocr/README.md).
    const std::vector<long long> rounded = rounded_sums(sub, tax);
    const auto agrees = [&](long long v) {
      return was_paid(v) || (sub && tax && v == *sub + *tax) ||
             std::find(rounded.begin(), rounded.end(), v) != rounded.end();
    };
    Candidate repaired{};
    if (best && !page.exact && !agrees(best->amount.cents)) {
      std::vector<long long> fixes;
      for (const long long v : misread_amounts(best->amount.cents)) {
        if (agrees(v)) fixes.push_back(v);
      }
      if (fixes.size() == 1) {
        repaired = *best;
        repaired.amount.cents = fixes.front();
        best = &repaired;
        best_score += 250;
      }
    }
    // What was paid (tendered - change) is a candidate of its own: "Accepted total 10.00",
    // "Change 5.00" is a total of 5.00.
    Candidate from_payment{};
    if (paid && *paid > 0) {
      from_payment = {Amount{*paid, true, tendered.back().amount.currency, 0, 0}, 2,
                      tendered.back().segment};
      // A plain label's, with cents, vouched for by two readings (tendered and change) that must
      // both be right: below a plain total read directly with cents as the largest candidate
      // (225). On the 200 receipts that order fixed 4 totals where a misread change decided
      // (339: "TOTAL RM 14.10", cash 20.00, change read 5.96) and lost 2 where the total itself
      // was misread (bench/ocr/README.md).
      const long score = 200 + 10 + 10;
      scored.emplace_back(*paid, score);
      if (!best || score > best_score) best = &from_payment, best_score = score;
    }
    // No total read, but a card payment with no change ("Master Card 63.80"): a card is charged
    // the total exactly.
    Candidate from_card{};
    if ((!best || best_score <= 0) && tendered_exact > 0 && tendered.back().strength == 1) {
      from_card = tendered.back();
      best = &from_card, best_score = 1;
    }
    // No total label read: an amount below the subtotal that is subtotal + tax ("1 210,00 Kč"
    // under "Celkem bez DPH 1 000,00" and "DPH 21 % 210,00").
    Candidate from_sum{};
    if ((!best || best_score <= 0) && sub && tax && found_at.count("SUBTOTAL")) {
      for (std::size_t k = found_at["SUBTOTAL"]; k < n && best != &from_sum; ++k) {
        for (const auto& a : find_amounts(r[k].text, rules.lexicon)) {
          if (a.cents == *sub + *tax && a.cents > 0) {
            from_sum = {a, 1, k};
            if (from_sum.amount.currency.empty()) from_sum.amount.currency = page_currency;
            best = &from_sum, best_score = 1;
            break;
          }
        }
      }
    }
    // No total read at all, but a subtotal with no tax read below it: a receipt that prints only
    // "SUBTOTAL" above its payment lines (the tax, if any, above it and included) bills that.
    Candidate from_subtotal{};
    if ((!best || best_score <= 0) && sub && *sub > 0 && found_at.count("SUBTOTAL") &&
        (!tax || !found_at.count("GST") || found_at["GST"] < found_at["SUBTOTAL"])) {
      // The value's own segment: the label's, or one after it (right of it or below).
      for (std::size_t k = found_at["SUBTOTAL"]; k < n && k <= found_at["SUBTOTAL"] + 2 && best != &from_subtotal; ++k) {
        for (const auto& a : find_amounts(r[k].text, rules.lexicon, true)) {
          if (a.cents == *sub) {
            from_subtotal = {a, 1, k};
            if (from_subtotal.amount.currency.empty()) from_subtotal.amount.currency = page_currency;
            best = &from_subtotal, best_score = 1;
            break;
          }
        }
      }
    }
    if (!statement && best && best_score > 0) {  // a statement's balances are not a bill's total
      set("TOTAL", format_amount(best->amount.cents, best->amount.currency), best->segment);
      if (best == &from_payment) checks["total_from_payment"] = true;
      if (best == &repaired) checks["total_repaired"] = true;
      // A total read on the page (or repaired) that a printed sum agrees with, or one found as
      // subtotal + tax: vouched for by figures read apart from it.
      total_vouched = best == &repaired || best == &from_sum || (best != &from_payment && best != &from_card &&
                                                                 best != &from_subtotal && agrees(best->amount.cents));
      if (best == &from_sum) checks["total_from_sum"] = true;
      if (best == &from_card) checks["total_from_card"] = true;
      if (best == &from_subtotal) checks["total_from_subtotal"] = true;
      Evidence& e = evidence["TOTAL"];
      e.sums_agree = total_vouched;
      e.repaired = best == &repaired;
      // Read beside a total's label (not what was paid, a card, a sum or the subtotal).
      e.labelled = best == &repaired ||
                   std::any_of(totals.begin(), totals.end(), [&](const Candidate& c) { return &c == best; });
      e.label_fuzzy = e.labelled && best->fuzzy;
      std::set<long long> amounts;
      long runner_up = 0;
      bool contested = false;
      for (const auto& [amount, score] : scored) {
        amounts.insert(amount);
        if (amount != best->amount.cents && (!contested || score > runner_up)) runner_up = score, contested = true;
      }
      e.candidates = std::max<int>(1, static_cast<int>(amounts.size()));
      e.margin = contested ? static_cast<double>(best_score - runner_up) : 0.0;
    }
  }

  // INVOICE_DATE without a label: the most plausible date on the page, beside a time of day,
  // high on the page, and not one a due-date or period label gave.
  void date_by_position(nlohmann::json& checks) {
    if (!found.count("INVOICE_DATE") && !statement) {
      static const std::regex kTime(
          R"((^|[^\d])([01]?\d|2[0-3])\s?[:.]\s?[0-5]\d(\s?[:.]\s?[0-5]\d)?(?!\d))");
      std::optional<Date> best;
      std::size_t best_segment = 0;
      double best_score = 0;
      std::vector<std::pair<std::string, double>> scored;  // each date and its score: the winner's margin
      for (std::size_t i = 0; i < n; ++i) {
        if (std::any_of(other_dates.begin(), other_dates.end(),
                        [&](const auto& o) { return o.first == i || o.second == i; }))
          continue;
        for (const auto& d : find_dates(r[i].text, rules.lexicon, order)) {
          const std::string rest = r[i].text.substr(0, d.begin) + " " + r[i].text.substr(d.end);
          double score = 10.0 - 8.0 * r[i].top / std::max(1, page.height);
          if (std::regex_search(rest, kTime)) score += 10;
          scored.emplace_back(format_date(d), score);
          if (!best || score > best_score) best = d, best_segment = i, best_score = score;
        }
      }
      if (best) {
        set("INVOICE_DATE", format_date(*best), best_segment);
        checks["date_by_position"] = true;
        note_contest("INVOICE_DATE", format_date(*best), best_score, scored);
      }
    }
  }

  // An ABN without its label: any group of 11 digits that passes the checksum.
  void abn_by_checksum(nlohmann::json& checks) {
    if (!found.count("ABN") && !statement) {
      for (std::size_t i = 0; i < n; ++i) {
        if (auto v = parse_abn(r[i].text)) {
          set("ABN", *v, i);
          checks["abn_by_checksum"] = true;
          break;
        }
      }
    }
  }

  // The line items, from whole lines (a row's cells are far apart): a header row with a
  // description column and a quantity or price column, then rows in the same block (or the next,
  // when the header stands alone) until a line with a label.
  void line_items() {
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
      if (has_any(l, rules.table_description) &&
          (has_any(l, rules.table_quantity) || has_any(l, rules.table_price))) {
        table = i;
      }
    }
    if (table) {
      std::vector<std::string> descriptions, quantities, prices;
      std::vector<std::size_t> rows;  // the lines read as items: the lists' evidence
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
        if (!words.empty()) {
          if (const auto a = money(words.back(), false)) {
            price = format_amount(a->cents, a->currency);
            words.pop_back();
          }
        }
        std::optional<std::string> quantity;
        if (!words.empty() && price &&
            (words.back() == "l" || words.back() == "I" || words.back() == "|")) {
          words.back() = "1";  // a lone 1 before the price, read as a letter
        }
        if (!words.empty() && words.back().size() <= 4 &&
            std::all_of(words.back().begin(), words.back().end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
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
        rows.push_back(i);
      }
      const auto joined = [](const std::vector<std::string>& items) {
        std::string s;
        for (const auto& item : items) s += (s.empty() ? "" : " | ") + item;
        return s;
      };
      if (!descriptions.empty()) found["DESCRIPTIONS"] = joined(descriptions);
      if (!statement && !quantities.empty()) found["QUANTITIES"] = joined(quantities);
      if (!statement && !prices.empty()) found["PRICES"] = joined(prices);
      // The lists' evidence: every word of the rows they were read from, under the table's header.
      Evidence e;
      e.labelled = true;
      double sum = 0;
      int count = 0;
      for (const std::size_t i : rows) {
        for (const Word& w : page.lines[i].words) {
          if (count == 0) e.box = w.box;
          e.box = {std::min(e.box.left, w.box.left), std::min(e.box.top, w.box.top),
                   std::max(e.box.right, w.box.right), std::max(e.box.bottom, w.box.bottom)};
          e.word_min = std::min(e.word_min, static_cast<double>(w.confidence));
          sum += w.confidence;
          ++count;
        }
      }
      if (count > 0) e.word_mean = sum / count;
      for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"}) {
        if (found.count(list)) evidence[list] = e;
      }
    }
  }

  // The supplier: the seller's name, ranked among the lines at the top (and, for a PDF's footer,
  // lines at the bottom that carry a legal form): early, prominent (taller than the page's usual
  // line, in capitals), with a company-form word ("Sdn Bhd", "GmbH"); never a heading, a label, an
  // address, a registration number or a contact line. First, where the payer's lines are: the
  // block of the payer's (or account holder's) label.
  void supplier() {
    for (const char* field : {"PAYER_NAME", "ACCOUNT_HOLDER"}) {
      if (found_at.count(field) && !payer_block) payer_block = r[found_at[field]].block;
    }
    if (found.count("SUPPLIER")) {  // under a label ("Lieferant", "Dodavatel")
      supplier_at = found_at["SUPPLIER"];
      supplier_block = r[*supplier_at].block;
    } else if (!statement && n > 0) {
      std::vector<int> heights;
      for (const auto& seg : r) heights.push_back(seg.height);
      std::nth_element(heights.begin(), heights.begin() + static_cast<long>(heights.size() / 2),
                       heights.end());
      const double median = std::max(1, heights[heights.size() / 2]);
      std::optional<std::size_t> best;
      double best_score = 0;
      int rank = 0;
      std::vector<std::pair<std::string, double>> scored;  // each line and its score: the winner's margin
      for (std::size_t i = 0; i < n; ++i) {
        const bool top = r[i].top <= page.height * 0.35 && rank < 12;
        const bool footer = r[i].top >= page.height * 0.75;
        if (!top && !footer) continue;
        const bool legal = has_any(lowercase(name_of(r[i].text)), rules.company_forms);
        if ((!top && !legal) || not_a_name(i)) continue;
        if (r[i].confidence < kNameConfidence) continue;  // a logo or a smudge read as letters
        int upper = 0, letters = 0;
        for (const char c : r[i].text) {
          if (std::isalpha(static_cast<unsigned char>(c)))
            ++letters, upper += std::isupper(static_cast<unsigned char>(c)) ? 1 : 0;
        }
        double score = top ? 20.0 - 6.0 * rank++ : 4.0;
        score += legal ? 12.0 : 0.0;
        score += 5.0 * std::clamp(r[i].height / median - 1.2, 0.0, 1.5);
        score += upper * 10 >= letters * 7 ? 2.0 : 0.0;
        // One word with no legal form is more often a column heading ("Status", "Art") than a name;
        // a line in lower case is a person or a remark; a line of short fragments is OCR's noise.
        if (!legal && r[i].text.find(' ') == std::string::npos) score -= 6.0;
        if (upper == 0) score -= 6.0;
        int words = 0, short_words = 0;
        for (const Piece& p : pieces_of(r[i].text))
          ++words, short_words += p.word.size() <= 2 ? 1 : 0;
        if (short_words * 2 > words) score -= 6.0;
        scored.emplace_back(r[i].text, score);
        if (!best || score > best_score) best = i, best_score = score;
      }
      if (best) {
        // OCR may split a name on its line ("POPULAR '   PR BOOK"): neighbours that read as a name
        // join it. The name is taken from the first of them.
        while (*best > 0 && r[*best - 1].line == r[*best].line && !not_a_name(*best - 1)) --*best;
        std::size_t last = *best;
        while (last + 1 < n && r[last + 1].line == r[*best].line && !not_a_name(last + 1)) ++last;
        std::string name;
        for (std::size_t k = *best; k <= last; ++k)
          name += (name.empty() ? "" : " ") + name_of(r[k].text);
        const std::string lowered = lowercase(name);
        // A name broken over lines: "POPULAR BOOK" above "CO. (M) SDN BHD" or "(SEMENYIH) SDN BHD"
        // (the best line starts with its legal form or a bracket), "AIK HUAT HARDWARE ENTERPRISE
        // (SETIA" above "ALAM) SDN BHD" (a bracket left open), "GOLDEN KEY" above "MAKER SDN BHD".
        const bool starts_legal =
            std::any_of(rules.company_forms.begin(), rules.company_forms.end(),
                        [&](const auto& w) { return find_phrase(lowered, w) == 0; }) ||
            (!name.empty() && (name.front() == '(' || name.front() == '&'));
        const bool open =
            std::count(name.begin(), name.end(), '(') > std::count(name.begin(), name.end(), ')');
        // A trading name above the legal one ("BECON STATIONER" over "Becon Enterprise Sdn Bhd",
        // "TOKYO KITCHEN (CITTA MALL)" over "TOKYO KITCHEN SDN BHD") belongs to it as well.
        const auto prev = above(*best);
        const bool trading_name =
            prev && r[*prev].line + 1 == r[*best].line && r[*prev].block == r[*best].block &&
            has_any(lowered, rules.company_forms) && r[*prev].confidence >= kNameConfidence &&
            r[*best].text.find(':') == std::string::npos;  // "OWN BY: ..." names the owner alone
        if (prev && (starts_legal || trading_name) && !not_a_name(*prev))
          name = name_of(r[*prev].text) + " " + name;
        if (const auto next = below(*best);
            next && !not_a_name(*next) &&
            (open || (!has_any(lowered, rules.company_forms) &&
                      has_any(r[*next].lowered, rules.company_forms)))) {
          name += " " + name_of(r[*next].text);
        }
        set("SUPPLIER", repair_name(name, rules), *best);
        evidence["SUPPLIER"].repaired = found["SUPPLIER"] != name;
        note_contest("SUPPLIER", r[*best].text, best_score, scored);
        supplier_block = r[*best].block;
        supplier_at = best;
      }
    }
  }

  // BUSINESS_ADDRESS: the address lines under the supplier's name, after any registration lines.
  void business_address() {
    if (supplier_at) {
      std::string address;
      std::size_t skipped = 0, last_line = r[*supplier_at].line;
      for (std::size_t k = *supplier_at + 1; k < n && r[k].line <= last_line + 2; ++k) {
        if (r[k].left >= r[*supplier_at].right || r[k].right <= r[*supplier_at].left)
          continue;  // another column
        if (address_like(k) && r[k].hits.empty()) {
          address += (address.empty() ? "" : " ") + clean_text(r[k].text);
          address_segments.push_back(k);
          last_line = r[k].line;
        } else if (!address.empty() || ++skipped > 2) {
          break;
        } else {
          last_line = r[k].line;
        }
      }
      if (!address.empty()) set("BUSINESS_ADDRESS", address, *supplier_at);
    }
  }

  // The supplier's and the payer's contact lines, by block.
  void contacts() {
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
  }

  // A statement's bank: a known bank's name near the top, else its title line.
  void bank_name() {
    if (statement) {
      for (std::size_t i = 0; i < n && i < 6 && !found.count("BANK_NAME"); ++i) {
        for (const auto& bank : rules.banks) {
          if (find_phrase(r[i].lowered, bank) != std::string::npos) {
            set("BANK_NAME", clean_text(r[i].text), i);
            break;
          }
        }
      }
      if (!found.count("BANK_NAME") && heading && *heading > 0)
        set("BANK_NAME", clean_text(r[0].text), 0);
    }
  }

  // subtotal + GST = total, where all three were read.
  void sum_check(nlohmann::json& checks) {
    const auto subtotal = cents("SUBTOTAL"), gst = cents("GST"), total = cents("TOTAL");
    checks["sum"] = subtotal && gst && total
                        ? nlohmann::json(std::llabs(*subtotal + *gst - *total) <= 1)
                        : nlohmann::json(nullptr);
  }

  // A field's amount in cents, when it was found.
  std::optional<long long> cents(const char* field) const {
    const auto it = found.find(field);
    return it != found.end() ? amount_cents(it->second) : std::nullopt;
  }

  // The box around the words of `segments` (each within its segment's left and right).
  Box words_box(const std::vector<std::size_t>& segments) const {
    std::optional<Box> box;
    for (const std::size_t k : segments) {
      for (const Word& w : page.lines[r[k].line].words) {
        if (w.box.left < r[k].left || w.box.right > r[k].right) continue;
        box = !box ? w.box
                   : Box{std::min(box->left, w.box.left), std::min(box->top, w.box.top),
                         std::max(box->right, w.box.right), std::max(box->bottom, w.box.bottom)};
      }
    }
    return box.value_or(Box{});
  }

  // A field's evidence (rules.h): what its step noted (evidence), its label, and its words.
  Evidence evidence_of(const std::string& field, const std::string& value, std::size_t at) const {
    Evidence e;
    if (const auto it = evidence.find(field); it != evidence.end()) e = it->second;
    if (const auto it = label_fuzzy.find(field); it != label_fuzzy.end()) e.labelled = true, e.label_fuzzy = it->second;
    e.exact = page.exact;
    // The value's words: those of its line piece that carry its digits, where it is mostly digits
    // (an amount, a date, an id), preferring words whose digits are the value's ("11.80" in
    // "TOTAL 2 items 11.80"); all of them for a name or an address.
    std::string value_digits;
    int letters = 0;
    for (const char c : value) {
      if (std::isdigit(static_cast<unsigned char>(c))) value_digits += c;
      letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    }
    const bool numeric = value_digits.size() > static_cast<std::size_t>(letters);
    const Line& line = page.lines[r[at].line];
    std::vector<const Word*> all, digits, own;
    for (const Word& w : line.words) {
      if (w.box.left < r[at].left || w.box.right > r[at].right) continue;
      all.push_back(&w);
      std::string d;
      for (const char c : w.text) {
        if (std::isdigit(static_cast<unsigned char>(c))) d += c;
      }
      if (d.empty()) continue;
      digits.push_back(&w);
      // A lone digit ("2 items", the 0 of "T0TAL") is in most values by chance.
      if (value_digits.find(d) != std::string::npos && (d.size() >= 2 || value_digits.size() < 2)) own.push_back(&w);
    }
    const std::vector<const Word*>& words = !numeric ? all : !own.empty() ? own : !digits.empty() ? digits : all;
    if (!words.empty()) {
      double sum = 0, least = 100;
      Box box = words.front()->box;
      for (const Word* w : words) {
        sum += w->confidence;
        least = std::min(least, static_cast<double>(w->confidence));
        box = {std::min(box.left, w->box.left), std::min(box.top, w->box.top), std::max(box.right, w->box.right),
               std::max(box.bottom, w->box.bottom)};
      }
      e.word_mean = sum / static_cast<double>(words.size());
      e.word_min = least;
      e.box = box;
    }
    e.legal = has_any(lowercase(value), rules.company_forms);
    // The same amount or date read on another line: two readings of one figure rarely share a misread.
    const std::string kind = field == "TOTAL" ? "amount" : rules_kind(field);
    const auto value_cents = kind == "amount" ? amount_cents(value) : std::nullopt;
    for (std::size_t k = 0; k < n && !e.repeated; ++k) {
      if (k == at) continue;
      if (value_cents) {
        for (const auto& a : find_amounts(r[k].text, rules.lexicon)) e.repeated = e.repeated || a.cents == *value_cents;
      } else if (kind == "date") {
        for (const auto& d : find_dates(r[k].text, rules.lexicon, order)) e.repeated = e.repeated || format_date(d) == value;
      }
    }
    // A date whose printed digits are not its own: a misread day, month or year undone (values.h).
    if (!e.repaired && (rules_kind(field) == "date" || field == "INVOICE_DATE" || field == "DUE_DATE")) {
      std::string printed;
      for (const char c : r[at].text) {
        if (std::isdigit(static_cast<unsigned char>(c))) printed += c;
      }
      const std::string year = value.size() >= 2 ? value.substr(value.size() - 2) : value;
      const std::string day = value.size() >= 2 ? value.substr(0, 2) : value;
      const std::string day1 = day.size() == 2 && day[0] == '0' ? day.substr(1) : day;
      e.repaired = printed.find(year) == std::string::npos || printed.find(day1) == std::string::npos;
    }
    return e;
  }
  // A field's kind in the rules ("" for one without labels, as SUPPLIER found by position).
  std::string rules_kind(const std::string& field) const {
    for (const auto& f : rules.fields) {
      if (f.field == field) return f.kind;
    }
    return "";
  }
  // How many values competed for `field` and by how much `winner` (scored `best`) won.
  void note_contest(const std::string& field, const std::string& winner, double best,
                    const std::vector<std::pair<std::string, double>>& scored) {
    Evidence& e = evidence[field];
    std::set<std::string> values;
    std::optional<double> runner_up;
    for (const auto& [v, score] : scored) {
      values.insert(v);
      if (v != winner && (!runner_up || score > *runner_up)) runner_up = score;
    }
    e.candidates = std::max<int>(1, static_cast<int>(values.size()));
    e.margin = runner_up ? best - *runner_up : 0.0;
  }

  void set(const std::string& field, const std::string& value, std::size_t segment) {
    if (!found.count(field)) {
      found[field] = value;
      found_at[field] = segment;
    }
  }
  std::optional<Amount> money(const std::string& text, bool whole) const {
    auto all = find_amounts(text, rules.lexicon, whole);
    if (with_cents >= 2) {
      all.erase(std::remove_if(all.begin(), all.end(),
                               [](const Amount& a) { return !a.has_cents && a.currency.empty(); }),
                all.end());
    }
    if (all.empty()) return std::nullopt;
    Amount a = all.back();
    if (a.currency.empty()) a.currency = page_currency;
    return a;
  }
  std::optional<std::string> parse(const LabelRule& rule, const std::string& text) const {
    if (rule.kind == "amount") {
      const auto a = money(text, true);  // the label vouches for it
      return a ? std::optional(format_amount(a->cents, a->currency)) : std::nullopt;
    }
    return parse_kind(rule.kind, text, rules.lexicon, order);
  }
  std::optional<std::size_t> below(std::size_t i) const {
    for (std::size_t k = i + 1; k < n && r[k].line <= r[i].line + 1; ++k) {
      if (r[k].line == r[i].line + 1 && r[k].left < r[i].right && r[i].left < r[k].right) return k;
    }
    return std::nullopt;
  }
  std::string unlabelled_start(std::size_t k) const {
    const auto& hits = r[k].hits;
    return r[k].text.substr(0, hits.empty() ? std::string::npos : hits.front().at);
  }
  static bool is_empty(const std::string& v) {
    return !has_letters(v) && std::none_of(v.begin(), v.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
  }
  // A label's value: after it on its segment, up to the next label. When it is the segment's last
  // label and that leaves nothing (or it wants an amount or a date), the segments to its right
  // (across OCR's specks, up to the next label) and then the segment below are tried in turn.
  struct Value {
    std::string text;
    std::size_t segment;
  };
  std::vector<Value> value_of(std::size_t i, const Hit& h) const {
    std::vector<Value> tries{{r[i].text.substr(h.end, h.value_end - h.end), i}};
    const std::string& kind = rules.fields[h.rule].kind;
    if (h.value_end != r[i].text.size())
      return tries;  // another label follows: what is right of it is its value
    if (is_empty(tries[0].text) || kind == "amount" || kind == "date") {
      // Every segment to the right up to the next label: OCR splits specks off ("CASH tee” 50.50").
      for (std::size_t k = i + 1; k < n && r[k].line == r[i].line; ++k) {
        tries.push_back({unlabelled_start(k), k});
        if (!r[k].hits.empty()) break;
      }
      if (const auto k = below(i)) tries.push_back({unlabelled_start(*k), *k});
    }
    return tries;
  }
  static bool has_any(const std::string& lowered, const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(),
                       [&](const auto& w) { return find_phrase(lowered, w) != std::string::npos; });
  }
  // A long region name misread by a letter ("Selanger") is still one; a short one must be exact
  // ("Kedai" is one letter from "Kedah").
  static bool has_any_fuzzy(const std::string& lowered, const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(), [&](const auto& w) {
      return !find_label(lowered, w, w.size() >= 7).empty();
    });
  }
  // `regions`: whether naming a state or country alone makes a line an address.
  bool address_text(const std::string& t, bool regions = true) const {
    const std::string lowered = lowercase(t);
    return looks_like_address(t) || (regions && has_any_fuzzy(lowered, rules.regions)) ||
           (has_any(lowered, rules.address_words) &&
            std::any_of(t.begin(), t.end(),
                        [](char c) {
                          return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == ',';
                        })) ||
           (std::regex_search(t, kPostcode) && has_letters(t) && !parse_amount(t, rules.lexicon));
  }
  bool address_like(std::size_t i) const { return address_text(r[i].text); }
  bool not_a_name(std::size_t i) const {
    const std::string& t = r[i].text;
    const std::string name = name_of(t), lowered = lowercase(name);
    int letters = 0, digits = 0;
    for (const char c : name) {
      letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
      digits += std::isdigit(static_cast<unsigned char>(c)) ? 1 : 0;
    }
    const std::string whole = lowercase(page.lines[r[i].line].text());
    const bool table_header =
        has_any(whole, rules.table_description) &&
        (has_any(whole, rules.table_quantity) || has_any(whole, rules.table_price));
    // A lead-in ("OWN BY:") is dropped only in front of a legal name.
    const bool lead_in = t.find(':') != std::string::npos && !has_any(lowered, rules.company_forms);
    const bool web =
        lowered.find("www") != std::string::npos || lowered.find(".com") != std::string::npos;
    // A label in a name ("SUPER SEVEN CASH & CARRY") is a word of it when nothing follows it as a
    // value: a line without figures, and the label one of a payment's or a total's.
    const bool labelled = std::any_of(r[i].hits.begin(), r[i].hits.end(), [&](const Hit& h) {
      return rules.fields[h.rule].field.front() != '_' || digits > 0;
    });
    // An address line ends in a comma ("Wangsa Link, Wangsa Maju,"); a name with a legal form may
    // run into its address on a sender line ("Acme GmbH | Europa-Allee 19 | 60486 Frankfurt,").
    const bool continues = !t.empty() && t.back() == ',' && !has_any(lowered, rules.company_forms);
    return table_header || lead_in || web || labelled || continues || (heading && i == *heading) ||
           (payer_block && r[i].block == *payer_block) || letters < 3 || digits > letters ||
           parse_abn(t) || parse_phone(t) || parse_website(t) || parse_email(t) ||
           // A legal name may name its country ("AMANO MALAYSIA SDN BHD"): no address for that.
           address_text(name, !has_any(lowered, rules.company_forms)) || !find_dates(t, rules.lexicon).empty() ||
           has_any(lowered, rules.not_supplier) ||
           std::any_of(rules.document_types.begin(), rules.document_types.end(),
                       [&](const auto& type) { return has_any(lowered, type.second); });
  }
  // The segment that continues a name on the line above (skipping lines without letters: a
  // stray ':' read between "POPULAR BOOK" and "CO. (M) SDN BHD").
  std::optional<std::size_t> above(std::size_t i) const {
    for (std::size_t k = i; k-- > 0 && r[k].line + 3 >= r[i].line;) {
      if (r[k].line == r[i].line) continue;
      if (!has_letters(r[k].text) || r[k].text.size() <= 2) continue;
      return r[k].left < r[i].right && r[i].left < r[k].right ? std::optional(k) : std::nullopt;
    }
    return std::nullopt;
  }
  bool in_block(std::optional<int> block, std::size_t i) const {
    return block && r[i].block == *block;
  }
  // Labelled values: the first that passes its kind's check, top to bottom. TOTAL and the
  // payment lines are gathered as candidates and ranked below.
  struct Candidate {
    Amount amount;
    int strength;
    std::size_t segment;
    bool fuzzy = false;  // its label matched only with an edit
  };

  const Page& page;
  const Rules& rules;
  const std::vector<Segment> r;  // the page's segments, in reading order
  const std::size_t n;
  std::map<std::string, std::string> found;
  std::map<std::string, std::size_t> found_at;  // field → segment it came from
  std::optional<std::size_t> heading;           // the segment with the document's heading
  std::string doc_type;
  bool statement = false;
  DateOrder order = DateOrder::Dmy;
  std::string page_currency;
  int with_cents = 0;
  std::vector<bool> tax_summary;
  std::optional<std::size_t> rounding_line;
  std::optional<long long> rounding_amount;  // the rounding line's adjustment, its sign unknown
  std::vector<bool> rounds;                  // lines that name a rounding
  bool total_vouched = false;  // choose_total: a printed sum agrees with the TOTAL chosen
  std::map<std::string, Evidence> evidence;  // what the steps noted per field (evidence_of adds the rest)
  std::map<std::string, bool> label_fuzzy;   // fields read beside a label: whether it matched only with an edit
  std::vector<Candidate> totals, tendered, change;
  std::vector<std::pair<std::size_t, std::size_t>>
      other_dates;  // segments whose dates are not the invoice's
  std::optional<int> payer_block, supplier_block;
  std::optional<std::size_t> supplier_at;
  std::vector<std::size_t> address_segments;  // the segments BUSINESS_ADDRESS was read from
};

}  // namespace

Extraction extract_fields(const Page& page, const Rules& rules,
                          const std::vector<std::string>& field_names, DateOrderRule date_order) {
  return FieldFinder(page, rules, date_order).run(field_names);
}

}  // namespace docsift::ocr
