// Enum names, written once beside each enum (its owner's header) as a table of {value, name}
// pairs: to_string reads it, and config/ reads the same table to parse the name from YAML.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

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

}  // namespace docsift
