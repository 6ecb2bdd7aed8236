// libFuzzer target: the EXIF orientation parser over arbitrary bytes (PNG, WebP and TIFF framings).
#include <cstddef>
#include <cstdint>

#include "docsift/io/exif.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int o = docsift::io::exif_orientation(data, size);
  if (o < 1 || o > 8) __builtin_trap();
  return 0;
}
