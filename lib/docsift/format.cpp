#include "docsift/format.h"

#include <array>
#include <cstdio>

namespace docsift {

std::string human_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", value, kUnits[unit]);
  }
  return buf;
}

std::string human_count(std::uint64_t count) {
  char buf[32];
  if (count >= 1'000'000'000ULL) {
    std::snprintf(buf, sizeof buf, "%.2f B", static_cast<double>(count) / 1e9);
  } else if (count >= 1'000'000ULL) {
    std::snprintf(buf, sizeof buf, "%.2f M", static_cast<double>(count) / 1e6);
  } else if (count >= 1'000ULL) {
    std::snprintf(buf, sizeof buf, "%.2f K", static_cast<double>(count) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(count));
  }
  return buf;
}

}  // namespace docsift
