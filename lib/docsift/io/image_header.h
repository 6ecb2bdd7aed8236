// An image's width and height from the first bytes of its file, before any decoder sees it, so
// that a declared size over the pixel limit is refused without allocating (image_file.h). No
// OpenCV, no LibTorch: the fuzz build instruments it alone (tests/fuzz/fuzz_image_header.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace docsift::io {

struct ImageLimits {
  std::uint64_t max_pixels = 200'000'000;       // 200 MP: far above any scan at 600 dpi A3
  std::uint64_t max_file_bytes = 512ull << 20;  // 512 MiB
  // An image whose decoder reports lost data (a premature end, a corrupt segment) is read as far as
  // it decodes instead of failing (input.accept_truncated); the message goes in the record.
  bool accept_truncated = false;
};

// How many leading bytes image_size_from_header looks at: a JPEG's frame header can follow large
// EXIF and ICC segments, which is what reading 64 KiB allows for.
inline constexpr std::size_t kImageHeaderBytes = 64 * 1024;

// (width, height) for PNG (IHDR), JPEG (the first start-of-frame), BMP and WebP (VP8, VP8L, or
// VP8X's canvas); nullopt for other formats (TIFF: tiff_page_sizes) or a JPEG whose frame header
// lies beyond `head`. Throws docsift::FileError naming `label` for a malformed header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> image_size_from_header(
    std::span<const unsigned char> head, const std::string& label);

// Whether `head` starts as a TIFF (classic "II*\0"/"MM\0*", or BigTIFF).
bool is_tiff_header(std::span<const unsigned char> head);

// (width, height) of each directory (page) of a TIFF held whole in `file`, in file order, at most
// `max_pages` of them. A directory without both sizes gives (0, 0): unknown, and not decoded. The
// tags are read as libtiff reads them: a tag's first entry, one value, any integer type. The walk
// stops quietly where the chain leaves the file or comes back on itself (the pages past that are
// not decoded either). Empty when `file` is not a TIFF. Reads no byte outside `file`.
std::vector<std::pair<std::uint64_t, std::uint64_t>> tiff_page_sizes(
    std::span<const unsigned char> file, std::size_t max_pages = 10'000);

// One TIFF directory's sizes: the page's, and the strip's rows or the tile's sides, from which a
// decoder sizes its buffer (OpenCV allocates a strip of RowsPerStrip rows whatever the page's
// height, unless it is 2^32 - 1, "one strip"). 0 where the directory does not say.
struct TiffPage {
  std::uint64_t width = 0, height = 0, rows_per_strip = 0, tile_width = 0, tile_length = 0;
};
// As tiff_page_sizes, with the strips and tiles.
std::vector<TiffPage> tiff_pages(std::span<const unsigned char> file,
                                 std::size_t max_pages = 10'000);

// Throws docsift::FileError naming `label` when a page's strips or tiles would make a decoder
// allocate more than max_pixels pixels (the page itself within the limit: check_declared_size):
// "declares strips of N rows for an image of M rows".
void check_declared_buffers(const std::string& label, const TiffPage& page,
                            std::uint64_t max_pixels);

// Throws docsift::FileError, "LABEL: the header declares W×H pixels, over the limit of N
// megapixels; downscale the scan" (or an empty image), unless 0 < w·h <= max_pixels: one message
// for every format and page.
void check_declared_size(const std::string& label, std::uint64_t w, std::uint64_t h,
                         std::uint64_t max_pixels);

}  // namespace docsift::io
