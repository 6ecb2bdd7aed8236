// The OCR engine's field rules: a page's lines → the schema's fields, by labels and position, with
// the data in configs/fields/ocr-rules.yaml (compiled in as builtin:ocr-rules). No OCR here: the
// input is a laid-out page (page.h), so every rule is tested on pages made from strings.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/page.h"

namespace docsift::ocr {

struct LabelRule {
  std::string field;
  std::string kind;  // abn, date, period, amount, bsb, account, phone, email, name
  std::vector<std::string> labels;  // lower case
};

struct Rules {
  std::vector<std::pair<std::string, std::vector<std::string>>> document_types;  // type → heading words
  std::vector<LabelRule> fields;
  std::vector<std::string> table_description, table_quantity, table_price;
  std::vector<std::string> banks;
};

// `source`: "builtin:ocr-rules" or a YAML file in that layout. Throws docsift::ConfigError naming
// the source and the problem (an unknown kind, a field listed twice, an empty label list).
Rules load_rules(const std::string& source);

struct Extraction {
  std::map<std::string, std::string> fields;  // every name asked for; "N/A" when not found
  // What the checks found: "sum" (subtotal + GST = total: true, false, or null when one is
  // missing), and "abn_by_checksum" when the ABN had no label.
  nlohmann::json checks = nlohmann::json::object();
  std::string text;  // the page's lines, one per line: the record's raw_response
};

Extraction extract_fields(const Page& page, const Rules& rules, const std::vector<std::string>& field_names);

}  // namespace docsift::ocr
