#include "docsift/io/image_header.h"

#include <algorithm>

#include "docsift/error.h"
#include "docsift/io/byte_order.h"

namespace docsift::io {
namespace {

// JPEG: walk the marker segments to the first start-of-frame (SOF0..SOF15 except DHT, JPG, DAC).
std::optional<std::pair<std::uint64_t, std::uint64_t>> jpeg_size(std::span<const unsigned char> d,
                                                                 const std::string& label) {
  std::size_t i = 2;
  while (i + 4 <= d.size()) {
    if (d[i] != 0xFF) throw FileError(label + ": damaged JPEG (bad marker before the frame header)");
    const unsigned char marker = d[i + 1];
    if (marker == 0xFF) {
      ++i;  // fill byte
      continue;
    }
    const std::size_t length = (std::size_t{d[i + 2]} << 8) | d[i + 3];
    if (length < 2) throw FileError(label + ": damaged JPEG (segment length " + std::to_string(length) + ")");
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (i + 9 > d.size()) return std::nullopt;
      const std::uint64_t h = (std::uint64_t{d[i + 5]} << 8) | d[i + 6];
      const std::uint64_t w = (std::uint64_t{d[i + 7]} << 8) | d[i + 8];
      return std::make_pair(w, h);
    }
    i += 2 + length;
  }
  return std::nullopt;  // the frame header lies beyond what we read; OpenCV's limit still applies
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> image_size_from_header(std::span<const unsigned char> d,
                                                                              const std::string& label) {
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (d.size() >= 8 && std::equal(kPng, kPng + 8, d.begin())) {
    if (d.size() < 24 || !std::equal(d.begin() + 12, d.begin() + 16, "IHDR")) {
      throw FileError(label + ": damaged PNG (no IHDR header)");
    }
    return std::make_pair(std::uint64_t{be32(&d[16])}, std::uint64_t{be32(&d[20])});
  }
  if (d.size() >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return jpeg_size(d, label);
  if (d.size() >= 26 && d[0] == 'B' && d[1] == 'M') {
    const auto h = static_cast<std::int32_t>(le32(&d[22]));  // negative: top-down rows
    return std::make_pair(std::uint64_t{le32(&d[18])}, static_cast<std::uint64_t>(h < 0 ? -std::int64_t{h} : h));
  }
  return std::nullopt;
}

}  // namespace docsift::io
