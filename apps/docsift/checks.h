// CLI11 validators whose messages read as a person writes a range ("must be 1 or more, not 0"),
// where CLI::PositiveNumber's spells out a range that ends in a 309-digit number.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace docsift::cli {

// A number of at least `min` (`whole`: an integer).
inline CLI::Validator at_least(double min, bool whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", min);
  const std::string min_text = text;
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = whole ? static_cast<double>(std::strtoll(value.c_str(), &end, 10))
                               : std::strtod(value.c_str(), &end);
        if (value.empty() || end == nullptr || *end != '\0') {
          return std::string("must be ") + (whole ? "a whole number" : "a number") + ", not '" +
                 value + "'";
        }
        if (v < min) return "must be " + min_text + " or more, not " + value;
        return "";
      },
      (whole ? "INT >= " : "NUMBER >= ") + min_text);
}

}  // namespace docsift::cli
