// Unsigned integers read from file headers in either byte order (EXIF, PNG, BMP); the caller has
// checked that the bytes are there.
#pragma once

#include <cstdint>

namespace docsift::io {

inline std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
inline std::uint32_t le32(const unsigned char* p) {
  return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) |
         p[0];
}

}  // namespace docsift::io
