// Human-readable sizes and counts for tables and reports, and text made safe for one log line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace docsift {

// 512 -> "512 B"; 1536 -> "1.50 KiB" (binary units).
std::string human_bytes(std::uint64_t bytes);
// 999 -> "999"; 938'190'000 -> "938.19 M"; 8'100'000'000 -> "8.10 B".
std::string human_count(std::uint64_t count);

// `text` as one line a terminal shows as it is: control bytes (NUL, newline, escape) as \xNN, and
// the characters that end a line without being a control byte (U+0085, U+2028, U+2029) as \uNNNN.
// For any text from a file or a command line that goes into a message: a NUL would cut an
// exception's what() short, the others would forge a log line.
std::string printable(std::string_view text);

}  // namespace docsift
