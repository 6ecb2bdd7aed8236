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
#include "docsift/ocr/values.h"

namespace docsift::ocr {

struct LabelRule {
  std::string field;  // a schema field, or one of the total's helpers ("_NOT_TOTAL", "_TENDERED", "_CHANGE")
  std::string kind;   // abn, date, period, amount, bsb, account, phone, email, name; "none" for _NOT_TOTAL
  std::vector<std::string> labels;  // lower case (values.h: lowercase)
  std::vector<int> strength;        // per label, for TOTAL: 3 strong, 2 plain, 1 weak; else 0
};

// How to choose TOTAL (ocr-rules.yaml's `total:` says why).
struct TotalRules {
  std::vector<std::string> tax_summary, rounding;
};

struct Rules {
  std::vector<std::pair<std::string, std::vector<std::string>>> document_types;  // type → heading words
  std::vector<LabelRule> fields;
  TotalRules total;
  std::vector<std::string> company_forms, not_supplier, address_words, regions;
  // Words of trade that sellers' names carry (hardware, stationery, bakery, …), lower case: a word
  // of a name one OCR edit away from exactly one of them is read as it (repair_name).
  std::vector<std::string> business_words;
  std::vector<std::string> table_description, table_quantity, table_price;
  std::vector<std::string> banks;
  Lexicon lexicon;
};

// How numeric dates are read: day first, month first, or decided per page from the dates that can
// only be read one way (day first when none can).
enum class DateOrderRule { Dmy, Mdy, Auto };

// A seller's name as OCR read it, with two kinds of misreading undone: a digit among the capitals
// of dotted initials ("D.1.Y." → "D.I.Y."; 0, 1, 5, 8 → O, I, S, B), and a word of six letters or
// more one edit away from exactly one of `rules.business_words` ("HARDUARE" → "HARDWARE"), written
// in the word's own case.
std::string repair_name(const std::string& name, const Rules& rules);

// `source`: "builtin:ocr-rules" or a YAML file in that layout. Throws docsift::ConfigError naming
// the source and the problem (an unknown kind, a field listed twice, an empty label list).
Rules load_rules(const std::string& source);

struct Extraction {
  std::map<std::string, std::string> fields;  // every name asked for; "N/A" when not found
  // What the checks found: "sum" (subtotal + GST = total: true, false, or null when one is
  // missing), and "abn_by_checksum" when the ABN had no label.
  nlohmann::json checks = nlohmann::json::object();
  std::string text;  // the page's lines, one per line: the record's raw_response
  // Per field found, the mean confidence (Tesseract's 0-100) of the words of the line piece it was
  // read from: how sure OCR was of what the value was read from. 100 for a PDF's text layer.
  std::map<std::string, double> confidence;
};

Extraction extract_fields(const Page& page, const Rules& rules, const std::vector<std::string>& field_names,
                          DateOrderRule date_order = DateOrderRule::Auto);

// Where a label occurs in `lowered` (text through values.h's lowercase) as whole words, exactly, or with one edit
// in each of its words of 5 letters or more (OCR's "T0TAL", "SUBTOTAI"): {begin, end} byte ranges.
std::vector<std::pair<std::size_t, std::size_t>> find_label(const std::string& lowered, const std::string& label,
                                                            bool fuzzy = true);

}  // namespace docsift::ocr
