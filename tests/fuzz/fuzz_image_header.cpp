// libFuzzer target: the image header checks that run before any decoder (io/image_header.h): a
// PNG's IHDR, a JPEG's marker segments up to its frame header, a BMP's header. A malformed header
// must be a docsift error, never a read past the bytes or a crash.
#include <cstddef>
#include <cstdint>
#include <span>

#include "docsift/error.h"
#include "docsift/io/image_header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)docsift::io::image_size_from_header(std::span<const unsigned char>(data, size), "fuzz");
  } catch (const docsift::Error&) {
  }
  return 0;
}
