// Enum names, written once beside each enum (its owner's header) as a table of {value, name}
// pairs: to_string reads it, and config/ reads the same table to parse the name from YAML.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "docsift/error.h"

namespace docsift {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
constexpr std::string_view name_of(const Names<E, N>& names, E value) {
  for (const auto& [v, n] : names) {
    if (v == value) return n;
  }
  return "?";
}

// The value named `name` in `names`; a docsift::ConfigError "unknown WHAT \"NAME\" (known: ...)"
// listing them otherwise.
template <class E, std::size_t N>
E parse_name(const Names<E, N>& names, std::string_view name, std::string_view what) {
  std::string known;
  for (const auto& [value, n] : names) {
    if (n == name) return value;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  throw ConfigError("unknown " + std::string(what) + " \"" + std::string(name) +
                    "\" (known: " + known + ")");
}

}  // namespace docsift
