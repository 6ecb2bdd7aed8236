// libFuzzer target: the declared sizes of TIFF and WebP files, checked before any decoder
// (io/image_header.h): a TIFF's directory chain (classic and BigTIFF, either byte order,
// every page's ImageWidth and ImageLength) and a WebP's first chunk (VP8, VP8L, VP8X). A hostile
// chain (offsets past the end, a loop, a count that overflows) must end the walk, never read past
// the bytes or spin; a malformed WebP header must be a docsift error.
#include <cstddef>
#include <cstdint>
#include <span>

#include "docsift/error.h"
#include "docsift/io/image_header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  for (const docsift::io::TiffPage& page : docsift::io::tiff_pages(bytes, 64)) {
    try {
      docsift::io::check_declared_size("fuzz", page.width, page.height, 200'000'000);
      docsift::io::check_declared_buffers("fuzz", page, 200'000'000);
    } catch (const docsift::Error&) {
    }
  }
  (void)docsift::io::tiff_page_sizes(bytes, 64);
  try {
    if (const auto size = docsift::io::image_size_from_header(bytes, "fuzz")) {
      docsift::io::check_declared_size("fuzz", size->first, size->second, 200'000'000);
    }
  } catch (const docsift::Error&) {
  }
  return 0;
}
