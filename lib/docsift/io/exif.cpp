#include "docsift/io/exif.h"

#include <cstring>

#include "docsift/io/byte_order.h"

namespace docsift::io {
namespace {

int valid(int orientation) { return orientation >= 1 && orientation <= 8 ? orientation : 1; }

}  // namespace

int tiff_orientation(const unsigned char* d, std::size_t n) {
  if (n >= 6 && std::memcmp(d, "Exif\0\0", 6) == 0) {
    d += 6;
    n -= 6;
  }
  if (n < 8) return 1;
  bool little;
  if (d[0] == 'I' && d[1] == 'I' && d[2] == 42 && d[3] == 0) {
    little = true;
  } else if (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 42) {
    little = false;
  } else {
    return 1;
  }
  const auto u16 = [&](std::size_t at) -> std::uint32_t {
    return little ? (std::uint32_t{d[at + 1]} << 8 | d[at])
                  : (std::uint32_t{d[at]} << 8 | d[at + 1]);
  };
  const auto u32 = [&](std::size_t at) { return little ? le32(d + at) : be32(d + at); };
  const std::uint64_t ifd = u32(4);
  if (ifd + 2 > n) return 1;
  const std::uint64_t entries = u16(static_cast<std::size_t>(ifd));
  for (std::uint64_t i = 0; i < entries; ++i) {
    const std::uint64_t at = ifd + 2 + 12 * i;
    if (at + 12 > n) return 1;
    const auto e = static_cast<std::size_t>(at);
    // Orientation: SHORT (3), count 1, the value in the entry's first two value bytes.
    if (u16(e) == 0x0112)
      return u16(e + 2) == 3 && u32(e + 4) == 1 ? valid(static_cast<int>(u16(e + 8))) : 1;
  }
  return 1;
}

int exif_orientation(const unsigned char* d, std::size_t n) {
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (n >= 8 && std::memcmp(d, kPng, 8) == 0) {
    // Chunks: length (4, big-endian), type (4), data, CRC (4).
    std::uint64_t at = 8;
    while (at + 8 <= n) {
      const std::uint64_t length = be32(d + at);
      const unsigned char* type = d + at + 4;
      if (at + 12 + length > n) return 1;
      if (std::memcmp(type, "eXIf", 4) == 0)
        return tiff_orientation(d + at + 8, static_cast<std::size_t>(length));
      if (std::memcmp(type, "IEND", 4) == 0) return 1;
      at += 12 + length;
    }
    return 1;
  }
  if (n >= 12 && std::memcmp(d, "RIFF", 4) == 0 && std::memcmp(d + 8, "WEBP", 4) == 0) {
    // Chunks: FourCC, size (4, little-endian), data padded to an even size.
    std::uint64_t at = 12;
    while (at + 8 <= n) {
      const std::uint64_t size = le32(d + at + 4);
      if (at + 8 + size > n) return 1;
      if (std::memcmp(d + at, "EXIF", 4) == 0)
        return tiff_orientation(d + at + 8, static_cast<std::size_t>(size));
      at += 8 + size + (size & 1);
    }
    return 1;
  }
  return tiff_orientation(d, n);  // a TIFF file is itself the structure
}

}  // namespace docsift::io
