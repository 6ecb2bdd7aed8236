// Levenshtein distance, for "did you mean" (config keys) and fuzzy label matching (ocr/rules.cpp).
#pragma once

#include <string_view>

namespace docsift {

// Between two byte strings, stopping early above `limit` (then it returns limit + 1).
int edit_distance(std::string_view a, std::string_view b, int limit);

}  // namespace docsift
