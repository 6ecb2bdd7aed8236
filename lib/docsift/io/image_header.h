// An image's width and height from the first bytes of its file, before any decoder sees it, so
// that a declared size over the pixel limit is refused without allocating (image_file.h). No
// OpenCV, no LibTorch: the fuzz build instruments it alone (tests/fuzz/fuzz_image_header.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace docsift::io {

struct ImageLimits {
  std::uint64_t max_pixels = 200'000'000;        // 200 MP: far above any scan at 600 dpi A3
  std::uint64_t max_file_bytes = 512ull << 20;   // 512 MiB
  // An image whose decoder reports lost data (a premature end, a corrupt segment) is read as far as
  // it decodes instead of failing (input.accept_truncated); the message goes in the record.
  bool accept_truncated = false;
};

// How many leading bytes image_size_from_header looks at: a JPEG's frame header can follow large
// EXIF and ICC segments, which is what reading 64 KiB allows for.
inline constexpr std::size_t kImageHeaderBytes = 64 * 1024;

// (width, height) for PNG (IHDR), JPEG (the first start-of-frame) and BMP; nullopt for other
// formats or a JPEG whose frame header lies beyond `head`. Throws docsift::FileError naming
// `label` for a malformed header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> image_size_from_header(std::span<const unsigned char> head,
                                                                              const std::string& label);

}  // namespace docsift::io
