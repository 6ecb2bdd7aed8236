#include "docsift/text/byte_level.h"

#include "docsift/text/utf8.h"

namespace docsift::text {
namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<int, 324> to_byte{};  // every alphabet character is below U+0144

  Tables() {
    to_byte.fill(-1);
    char32_t next_extra = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
      to_char[b] = printable ? static_cast<char32_t>(b) : next_extra++;
      to_byte[to_char[b]] = b;
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t byte_to_char(unsigned char byte) { return tables().to_char[byte]; }

std::optional<unsigned char> char_to_byte(char32_t c) {
  if (c >= tables().to_byte.size() || tables().to_byte[c] < 0) return std::nullopt;
  return static_cast<unsigned char>(tables().to_byte[c]);
}

void append_byte_level(std::string& out, std::string_view raw) {
  for (const char ch : raw) append_utf8(out, byte_to_char(static_cast<unsigned char>(ch)));
}

std::string byte_level_to_bytes(std::string_view token) {
  std::string bytes;
  bytes.reserve(token.size());
  std::size_t pos = 0;
  while (pos < token.size()) {
    const auto byte = char_to_byte(next_code_point(token, pos));
    if (!byte) return std::string(token);
    bytes.push_back(static_cast<char>(*byte));
  }
  return bytes;
}

}  // namespace docsift::text
