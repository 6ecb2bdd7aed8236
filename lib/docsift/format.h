// Human-readable sizes and counts for tables and reports.
#pragma once

#include <cstdint>
#include <string>

namespace docsift {

// 512 -> "512 B"; 1536 -> "1.50 KiB" (binary units).
std::string human_bytes(std::uint64_t bytes);
// 999 -> "999"; 938'190'000 -> "938.19 M"; 8'100'000'000 -> "8.10 B".
std::string human_count(std::uint64_t count);

}  // namespace docsift
