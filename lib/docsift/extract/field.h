// Field types: how a field's value is extracted and how it is scored
// (docs/eval.md, "The fields").
#pragma once

#include <string>
#include <string_view>

namespace docsift::extract {

enum class FieldType { kNumericId, kMonetary, kDate, kList, kText };
// What one item of a list field is, for the docsift rules' item comparison (docs/eval.md):
// PRICES are money, QUANTITIES numbers, DESCRIPTIONS text. The schema's `items:` key.
enum class ItemType { kText, kMonetary, kNumber };

// "numeric_id", "monetary", "date", "list", "text"; throws docsift::ConfigError listing them.
FieldType parse_field_type(std::string_view name);
std::string_view to_string(FieldType type);
// "text", "monetary", "number"; throws docsift::ConfigError listing them.
ItemType parse_item_type(std::string_view name);
std::string_view to_string(ItemType type);

// The model writes N/A for an absent field; ground truth writes NOT_FOUND or leaves it empty.
// All three (any case, surrounding whitespace ignored) mean "missing".
bool is_missing(std::string_view value);

inline constexpr std::string_view kMissing = "N/A";

}  // namespace docsift::extract
