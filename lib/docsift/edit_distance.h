// Levenshtein distance, for "did you mean" (config keys) and fuzzy label matching
// (ocr/rule_text.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace docsift {

// Between two byte strings, stopping early above `limit` (then it returns limit + 1).
int edit_distance(std::string_view a, std::string_view b, int limit);

// The candidate nearest `word` within `limit` edits (the first of equals), or "" when none is:
// "did you mean" for config keys, subcommands and options.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates,
                          int limit = 3);

}  // namespace docsift
