#include "docsift/io/image_header.h"

#include <algorithm>
#include <set>

#include "docsift/error.h"
#include "docsift/io/byte_order.h"

namespace docsift::io {
namespace {

// JPEG: walk the marker segments to the first start-of-frame (SOF0..SOF15 except DHT, JPG, DAC).
std::optional<std::pair<std::uint64_t, std::uint64_t>> jpeg_size(std::span<const unsigned char> d,
                                                                 const std::string& label) {
  std::size_t i = 2;
  while (i + 4 <= d.size()) {
    if (d[i] != 0xFF)
      throw FileError(label + ": damaged JPEG (bad marker before the frame header)");
    const unsigned char marker = d[i + 1];
    if (marker == 0xFF) {
      ++i;  // fill byte
      continue;
    }
    const std::size_t length = (std::size_t{d[i + 2]} << 8) | d[i + 3];
    if (length < 2)
      throw FileError(label + ": damaged JPEG (segment length " + std::to_string(length) + ")");
    const bool sof =
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
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

// WebP ("RIFF" size "WEBP", then the first chunk): VP8X holds the canvas size (24 bits each,
// minus one), VP8L the lossless bitstream's (14 bits each, minus one), VP8 the key frame's (14
// bits each). https://developers.google.com/speed/webp/docs/riff_container
std::optional<std::pair<std::uint64_t, std::uint64_t>> webp_size(std::span<const unsigned char> d,
                                                                 const std::string& label) {
  if (d.size() < 30) throw FileError(label + ": damaged WebP (header too short)");
  const unsigned char* chunk = &d[12];
  const auto le24 = [](const unsigned char* p) {
    return std::uint64_t{p[0]} | std::uint64_t{p[1]} << 8 | std::uint64_t{p[2]} << 16;
  };
  if (std::equal(chunk, chunk + 4, "VP8X"))
    return std::make_pair(le24(&d[24]) + 1, le24(&d[27]) + 1);
  if (std::equal(chunk, chunk + 4, "VP8L")) {
    if (d[20] != 0x2F) throw FileError(label + ": damaged WebP (no lossless signature)");
    const std::uint32_t bits = le32(&d[21]);
    return std::make_pair(std::uint64_t{(bits & 0x3FFF) + 1},
                          std::uint64_t{((bits >> 14) & 0x3FFF) + 1});
  }
  if (std::equal(chunk, chunk + 4, "VP8 ")) {
    if (d[23] != 0x9D || d[24] != 0x01 || d[25] != 0x2A)
      throw FileError(label + ": damaged WebP (no key frame start code)");
    return std::make_pair(std::uint64_t{(d[26] | d[27] << 8) & 0x3FFFu},
                          std::uint64_t{(d[28] | d[29] << 8) & 0x3FFFu});
  }
  throw FileError(label + ": damaged WebP (unknown first chunk)");
}

// An unsigned integer of `n` bytes (2, 4 or 8) at `p`, in the TIFF's byte order.
std::uint64_t tiff_uint(const unsigned char* p, int n, bool big_endian) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t{p[big_endian ? n - 1 - i : i]} << (8 * i);
  return v;
}

}  // namespace

bool is_tiff_header(std::span<const unsigned char> d) {
  if (d.size() < 4) return false;
  const bool ii = d[0] == 'I' && d[1] == 'I' && (d[2] == 42 || d[2] == 43) && d[3] == 0;
  const bool mm = d[0] == 'M' && d[1] == 'M' && d[2] == 0 && (d[3] == 42 || d[3] == 43);
  return ii || mm;
}

std::vector<TiffPage> tiff_pages(std::span<const unsigned char> d, std::size_t max_pages) {
  std::vector<TiffPage> sizes;
  if (!is_tiff_header(d) || d.size() < 8) return sizes;
  const bool be = d[0] == 'M';
  const bool big = tiff_uint(&d[2], 2, be) == 43;  // BigTIFF: 8-byte counts and offsets
  if (big && d.size() < 16) return sizes;
  const int off_bytes = big ? 8 : 4, count_bytes = big ? 8 : 2, entry_bytes = big ? 20 : 12;
  std::uint64_t offset = tiff_uint(&d[big ? 8 : 4], off_bytes, be);
  std::set<std::uint64_t> seen;
  while (offset != 0 && sizes.size() < max_pages && seen.insert(offset).second) {
    if (offset > d.size() || d.size() - offset < static_cast<std::uint64_t>(count_bytes)) break;
    const std::uint64_t entries = tiff_uint(&d[offset], count_bytes, be);
    const std::uint64_t first = offset + count_bytes;
    if (entries > (d.size() - first) / entry_bytes) break;  // the directory runs past the file
    TiffPage page;
    std::set<std::uint64_t> tags_seen;  // libtiff keeps a tag's first entry and ignores repeats
    for (std::uint64_t e = 0; e < entries; ++e) {
      const unsigned char* entry = &d[first + e * entry_bytes];
      const std::uint64_t tag = tiff_uint(entry, 2, be), type = tiff_uint(entry + 2, 2, be);
      // ImageWidth, ImageLength, RowsPerStrip, TileWidth, TileLength
      if (tag != 256 && tag != 257 && tag != 278 && tag != 322 && tag != 323) continue;
      if (!tags_seen.insert(tag).second) continue;  // a repeat ("16 wide" after "262244 wide")
      // One value, as libtiff insists for these tags; another count leaves the tag unknown (0).
      if (tiff_uint(entry + 4, off_bytes, be) != 1) continue;
      // Every integer type libtiff reads these tags from (as its TIFFReadDirEntryLong does), held
      // in the entry's value field, left-justified: BYTE/SBYTE (1, 6), SHORT/SSHORT (3, 8),
      // LONG/SLONG (4, 9), and in BigTIFF LONG8/SLONG8 (16, 17). Only SHORT and LONG once: a page
      // whose size came as SLONG went unchecked to the decoder (the image_decode fuzz target's
      // 30000 × 30000 page; bench/fuzz/README.md). A negative size is no size.
      const bool is_signed = type == 6 || type == 8 || type == 9 || type == 17;
      const int n = type == 1 || type == 6              ? 1
                    : type == 3 || type == 8            ? 2
                    : type == 4 || type == 9            ? 4
                    : (type == 16 || type == 17) && big ? 8
                                                        : 0;
      if (n == 0) continue;
      std::uint64_t v = tiff_uint(entry + 4 + off_bytes, n, be);
      if (is_signed && (v >> (8 * n - 1)) != 0) v = 0;
      (tag == 256   ? page.width
       : tag == 257 ? page.height
       : tag == 278 ? page.rows_per_strip
       : tag == 322 ? page.tile_width
                    : page.tile_length) = v;
    }
    if (page.width == 0 || page.height == 0) page.width = page.height = 0;
    sizes.push_back(page);
    const std::uint64_t next_at = first + entries * entry_bytes;
    if (d.size() - next_at < static_cast<std::uint64_t>(off_bytes)) break;
    offset = tiff_uint(&d[next_at], off_bytes, be);
  }
  return sizes;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> tiff_page_sizes(
    std::span<const unsigned char> d, std::size_t max_pages) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes;
  for (const TiffPage& p : tiff_pages(d, max_pages)) sizes.emplace_back(p.width, p.height);
  return sizes;
}

void check_declared_buffers(const std::string& label, const TiffPage& page,
                            std::uint64_t max_pixels) {
  // 2^32 - 1 is the writers' "all rows in one strip", which the decoders read as the page's height.
  const std::uint64_t rows = page.rows_per_strip == 0xFFFFFFFFu ? 0 : page.rows_per_strip;
  if (rows > page.height && page.width > 0 && rows > max_pixels / page.width) {
    throw FileError(label + ": the TIFF page declares strips of " + std::to_string(rows) +
                    " rows for an image of " + std::to_string(page.height) +
                    " rows, more than a decoder may allocate under the limit of " +
                    std::to_string(max_pixels / 1'000'000) +
                    " megapixels; not decoded (a damaged file?)");
  }
  if (page.tile_width > 0 && page.tile_length > 0 &&
      page.tile_width > max_pixels / page.tile_length) {
    throw FileError(label + ": the TIFF page declares tiles of " + std::to_string(page.tile_width) +
                    "×" + std::to_string(page.tile_length) + " pixels, over the limit of " +
                    std::to_string(max_pixels / 1'000'000) +
                    " megapixels; not decoded (a damaged file?)");
  }
}

void check_declared_size(const std::string& label, std::uint64_t w, std::uint64_t h,
                         std::uint64_t max_pixels) {
  if (w == 0 || h == 0) {
    throw FileError(label + ": the header declares an empty image (" + std::to_string(w) + "×" +
                    std::to_string(h) + ")");
  }
  if (w > max_pixels / h) {
    throw FileError(label + ": the header declares " + std::to_string(w) + "×" + std::to_string(h) +
                    " pixels, over the limit of " + std::to_string(max_pixels / 1'000'000) +
                    " megapixels; downscale the scan");
  }
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> image_size_from_header(
    std::span<const unsigned char> d, const std::string& label) {
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
    return std::make_pair(std::uint64_t{le32(&d[18])},
                          static_cast<std::uint64_t>(h < 0 ? -std::int64_t{h} : h));
  }
  if (d.size() >= 12 && std::equal(d.begin(), d.begin() + 4, "RIFF") &&
      std::equal(d.begin() + 8, d.begin() + 12, "WEBP")) {
    return webp_size(d, label);
  }
  return std::nullopt;
}

}  // namespace docsift::io
