// Field types: how a field's value is extracted and how it is scored
// (docs/eval.md, "The fields").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/names.h"

namespace docsift::extract {

enum class FieldType { kNumericId, kMonetary, kDate, kList, kText };
// What one item of a list field is, for the docsift rules' item comparison (docs/eval.md):
// PRICES are money, QUANTITIES numbers, DESCRIPTIONS text. The schema's `items:` key.
enum class ItemType { kText, kMonetary, kNumber };

inline constexpr Names<FieldType, 5> kFieldTypeNames{{{FieldType::kNumericId, "numeric_id"},
                                                      {FieldType::kMonetary, "monetary"},
                                                      {FieldType::kDate, "date"},
                                                      {FieldType::kList, "list"},
                                                      {FieldType::kText, "text"}}};
inline constexpr Names<ItemType, 3> kItemTypeNames{
    {{ItemType::kText, "text"}, {ItemType::kMonetary, "monetary"}, {ItemType::kNumber, "number"}}};
// Which pages of a document of several give a field's value (the schema's `pages:` key,
// docs/run.md, "Documents of several pages"): the first page that has one (a letterhead, a date),
// the last that has one (the sums a long invoice prints where it ends), or every page's items in
// page order (a list's; its default).
enum class PageRule { kFirst, kLast, kAll };
inline constexpr Names<PageRule, 3> kPageRuleNames{
    {{PageRule::kFirst, "first"}, {PageRule::kLast, "last"}, {PageRule::kAll, "all"}}};
constexpr std::string_view to_string(FieldType type) { return name_of(kFieldTypeNames, type); }
constexpr std::string_view to_string(ItemType type) { return name_of(kItemTypeNames, type); }
constexpr std::string_view to_string(PageRule rule) { return name_of(kPageRuleNames, rule); }

// "numeric_id", "monetary", "date", "list", "text"; throws docsift::ConfigError listing them.
FieldType parse_field_type(std::string_view name);
// "text", "monetary", "number"; throws docsift::ConfigError listing them.
ItemType parse_item_type(std::string_view name);
// "first", "last", "all"; throws docsift::ConfigError listing them.
PageRule parse_page_rule(std::string_view name);

// The model writes N/A for an absent field; ground truth writes NOT_FOUND or leaves it empty.
// All three (any case, surrounding whitespace ignored) mean "missing".
bool is_missing(std::string_view value);

inline constexpr std::string_view kMissing = "N/A";

// `s` without its surrounding whitespace, in upper case: how document types are compared.
std::string folded(std::string_view s);

// Whether a schema's `applies_to:` list holds `document_type` (ignoring case and surrounding
// whitespace); an empty list holds every type. A field's and a table's scope read the same.
bool applies_to_type(const std::vector<std::string>& applies_to, std::string_view document_type);

// A field's or a table's name as the model writes it: upper-case letters, digits and _.
bool valid_schema_name(std::string_view name);

// An amount with its sign, as invoices and bank statements write one: negative in parentheses
// ("($1,373.03)") or with a minus before or after it ("-$1,373.03", "1,373.03-"). Currency signs,
// letters (AUD), spaces and thousands commas are ignored; nullopt when what is left is not one
// number. Scoring (eval/scoring.cpp) and the review queue's sums (review_queue.h) read amounts so.
std::optional<double> parse_amount(std::string_view s);

}  // namespace docsift::extract
