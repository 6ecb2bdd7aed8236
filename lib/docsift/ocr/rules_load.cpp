// Loading the OCR rules: configs/fields/ocr-rules.yaml (compiled in as builtin:ocr-rules) or a file
// in its layout, checked as it is read.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string_view>

#include "docsift/error.h"
#include "docsift/ocr/rule_text.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/yaml_source.h"

namespace docsift::ocr {

std::string_view builtin_rules_text();  // generated from configs/fields/ocr-rules.yaml

using detail::kind_names;
using detail::known_kind;

namespace {

std::vector<std::string> strings(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsSequence() || node.size() == 0)
    throw ConfigError(where + ": expected a non-empty list");
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(lowercase(item.as<std::string>()));
  return out;
}

// home.regions before a four-digit postcode (Australia's, the one home the rules have). As an
// address prints them (`address`): the region upper-cased as a word, then spaces ("VIC 3000").
// Else as any line of a lowered page may show them (values.h: Lexicon::home_postcode): the region
// as a word, then stops, commas or spaces ("qld 4000", "nsw, 2000"). ASCII punctuation in a region
// is escaped; other bytes stand for themselves.
std::regex state_postcode(const std::vector<std::string>& regions, bool address) {
  std::string alternatives;
  for (const std::string& region : regions) {
    if (!alternatives.empty()) alternatives += '|';
    for (const char c : region) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x80 && std::ispunct(u)) alternatives += '\\';
      alternatives += u < 0x80 && address ? static_cast<char>(std::toupper(u)) : c;
    }
  }
  if (address) return std::regex("\\b(" + alternatives + ")\\s+\\d{4}\\b");
  return std::regex("(^|[^a-z0-9])(" + alternatives + ")(?![a-z0-9])[., ]*\\d{4}(?!\\d)");
}

// `table:`: each column's header phrases (table.h), every column named once; the description and
// at least one column of figures are required, the others optional.
TableWords table_words(const YAML::Node& node, const std::string& source) {
  if (!node || !node.IsMap())
    throw ConfigError(source + ": table: expected a mapping of columns to header words");
  TableWords out;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    Column column;
    try {
      column = parse_name(kColumnNames, key, "table column");
    } catch (const ConfigError& e) {
      throw ConfigError(source + ": table: " + e.what());
    }
    out.emplace_back(column, strings(kv.second, source + ": table." + key));
  }
  const auto names = [&](Column c) {
    return std::any_of(out.begin(), out.end(), [&](const auto& col) { return col.first == c; });
  };
  if (!names(Column::kDescription)) throw ConfigError(source + ": table: no description column");
  if (out.size() < 2)
    throw ConfigError(source + ": table: a description column and at least one other are needed");
  return out;
}

// The file's YAML (or the built-in text), a mapping at the top.
YAML::Node read_root(const std::string& source) {
  YAML::Node root = load_yaml_source(source, {"builtin:ocr-rules", builtin_rules_text(),
                                              "ocr.rules", "configs/fields/ocr-rules.yaml"});
  if (!root.IsMap()) {
    throw ConfigError(source +
                      ": expected a mapping at the top (document_types, fields, total, ...), as in "
                      "configs/fields/ocr-rules.yaml; is this the OCR rules file?");
  }
  return root;
}

// fields: each labelled field with its kind and labels.
void read_fields(YAML::Node root, const std::string& source, Rules& rules) {
  std::set<std::string> seen;
  for (const auto& f : root["fields"]) {
    const std::string field = f.first.as<std::string>(), where = source + ": fields." + field;
    if (!seen.insert(field).second) throw ConfigError(where + ": listed twice");
    if (field == "TOTAL" || field.front() == '_')
      throw ConfigError(where + ": TOTAL's labels go under total: (strong, plain, weak)");
    const std::string kind = f.second["kind"].as<std::string>("");
    if (!known_kind(kind))
      throw ConfigError(where + ": kind '" + kind + "' is not one of " + kind_names());
    auto labels = strings(f.second["labels"], where + ".labels");
    rules.fields.push_back({field, kind, labels, std::vector<int>(labels.size(), 0)});
  }
  // TOTAL and its helpers, ranked by extract_fields.
}

// total: TOTAL's labels by strength, and its helpers (never a total, tendered and a card, change).
void read_total(YAML::Node root, const std::string& source, Rules& rules) {
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
  for (const auto& [key, field, kind] :
       {std::tuple{"not_total", "_NOT_TOTAL", "none"},
        std::tuple{"tendered", "_TENDERED", "amount"}, std::tuple{"change", "_CHANGE", "amount"}}) {
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
}

// The words of an address the rules know (address_words and the words of regions and of the home
// country's cities), lower case.
std::vector<std::string> address_vocabulary(const Rules& rules) {
  std::vector<std::string> words;
  for (const auto* list : {&rules.address_words, &rules.regions, &rules.home.cities}) {
    for (const std::string& phrase : *list) {
      std::size_t at = 0;
      while (at < phrase.size()) {
        const std::size_t end = std::min(phrase.find(' ', at), phrase.size());
        const std::string word = casefold(phrase.substr(at, end - at));
        if (word.size() >= 3 && std::all_of(word.begin(), word.end(), [](char c) {
              return std::islower(static_cast<unsigned char>(c)) != 0;
            }))
          words.push_back(word);
        at = end + 1;
      }
    }
  }
  return words;
}

}  // namespace

Rules load_rules(const std::string& source) {
  YAML::Node root = read_root(source);
  Rules rules;
  try {
    for (const auto& t : root["document_types"]) {
      std::vector<std::string> words = strings(t["words"], source + ": document_types");
      // Each word also without its accents, as OCR often reads them ("REÇU" read "RECU"): the
      // heading's finder and the seller's (never a heading) both see them.
      for (std::size_t k = 0, written = words.size(); k < written; ++k) {
        std::string plain = casefold(words[k], true);
        if (std::find(words.begin(), words.end(), plain) == words.end())
          words.push_back(std::move(plain));
      }
      rules.document_types.emplace_back(t["type"].as<std::string>(), std::move(words));
    }
    read_fields(root, source, rules);
    read_total(root, source, rules);
    rules.company_forms = strings(root["company_forms"], source + ": company_forms");
    rules.not_supplier = strings(root["not_supplier"], source + ": not_supplier");
    // Optional, so that a rules file written before it loads as it did.
    if (root["party_label_phrases"]) {
      rules.party_label_phrases =
          strings(root["party_label_phrases"], source + ": party_label_phrases");
    }
    rules.address_words = strings(root["address_words"], source + ": address_words");
    if (root["address_labels"]) {  // optional, as party_label_phrases
      for (const auto& w : strings(root["address_labels"], source + ": address_labels"))
        rules.address_labels.push_back(casefold(w));
    }
    rules.regions = strings(root["regions"], source + ": regions");
    for (const auto& w : strings(root["business_words"], source + ": business_words"))
      rules.business_words.push_back(casefold(w));
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
    rules.table = table_words(root["table"], source);
    rules.banks = strings(root["banks"], source + ": banks");
    // Optional, so that a rules file written before it loads as it did.
    if (const YAML::Node home = root["home"]) {
      if (const YAML::Node country = home["country"]) {
        if (!country.IsScalar() || country.as<std::string>().empty())
          throw ConfigError(source + ": home.country: expected a country's name");
        rules.home.country = lowercase(country.as<std::string>());
      }
      rules.home.regions = strings(home["regions"], source + ": home.regions");
      rules.lexicon.state_postcode = state_postcode(rules.home.regions, /*address=*/true);
      rules.lexicon.home_postcode = state_postcode(rules.home.regions, /*address=*/false);
      rules.home.domains = strings(home["domains"], source + ": home.domains");
      rules.home.company_forms = strings(home["company_forms"], source + ": home.company_forms");
      if (home["cities"]) rules.home.cities = strings(home["cities"], source + ": home.cities");
    }
    rules.address_vocabulary = address_vocabulary(rules);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg +
                      " (see configs/fields/ocr-rules.yaml for the layout)");
  }
  if (rules.document_types.empty() || rules.fields.empty()) {
    throw ConfigError(source +
                      ": needs document_types and fields (see configs/fields/ocr-rules.yaml)");
  }
  rules.finder = load_finder("builtin:ocr-finder");
  return rules;
}

const std::vector<std::string>& Rules::table_words(Column column) const {
  static const std::vector<std::string> none;
  for (const auto& [c, words] : table) {
    if (c == column) return words;
  }
  return none;
}

}  // namespace docsift::ocr
