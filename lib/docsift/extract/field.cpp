#include "docsift/extract/field.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "docsift/error.h"

namespace docsift::extract {

FieldType parse_field_type(std::string_view name) {
  return parse_name(kFieldTypeNames, name, "field type");
}
ItemType parse_item_type(std::string_view name) {
  return parse_name(kItemTypeNames, name, "item type");
}
PageRule parse_page_rule(std::string_view name) {
  return parse_name(kPageRuleNames, name, "page rule");
}

std::string folded(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out;
  for (const char c : s)
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

bool applies_to_type(const std::vector<std::string>& applies_to, std::string_view document_type) {
  if (applies_to.empty()) return true;
  const std::string type = folded(document_type);
  return std::any_of(applies_to.begin(), applies_to.end(),
                     [&](const std::string& t) { return folded(t) == type; });
}

bool valid_schema_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_missing(std::string_view value) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
    value.remove_suffix(1);
  if (value.empty()) return true;
  // Compared in place: eval calls this four times per field case (docs/eval.md, 100,000 rows in 5
  // s).
  const auto same = [&](std::string_view upper) {
    if (value.size() != upper.size()) return false;
    for (std::size_t i = 0; i < upper.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(value[i])) != upper[i]) return false;
    }
    return true;
  };
  return same("N/A") || same("NOT_FOUND");
}

// An amount with its sign, as invoices and bank statements write one: negative in parentheses
// ("($1,373.03)") or with a minus before or after it ("-$1,373.03", "$-1,373.03", "1,373.03-").
// Currency signs, letters (AUD), spaces and thousands commas are ignored; nullopt when what is
// left is not one number (a minus between digits, two points).
std::optional<double> parse_amount(std::string_view s) {
  std::string_view t = s;
  const auto trim_view = [&t] {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  };
  trim_view();
  bool negative = false;
  if (t.size() >= 2 && t.front() == '(' && t.back() == ')') {
    negative = true;
    t = t.substr(1, t.size() - 2);
    trim_view();
  }
  if (!t.empty() && t.back() == '-') {
    negative = true;
    t.remove_suffix(1);
  }
  std::string number;
  for (const char c : t) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      number.push_back(c);
    } else if (c == '-') {
      if (!number.empty()) return std::nullopt;
      negative = true;
    }
  }
  if (number.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return std::nullopt;
  return negative ? -value : value;
}

}  // namespace docsift::extract
