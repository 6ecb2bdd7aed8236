// libFuzzer target: an image file decoded as a run decodes it (io/image_file.h): the
// declared sizes checked first, then OpenCV's decoders (libpng, libjpeg, libtiff, libwebp, BMP),
// EXIF orientation and the conversion to 8-bit RGB, for every page of a multi-page TIFF (up to
// four). The bytes live in an in-memory file reached through /proc/self/fd, so the code under test
// reads them by path exactly as from an inbox. A decoder's refusal must be a docsift::FileError;
// anything else (a crash, an OpenCV exception escaping, a sanitizer report in docsift's own code)
// is a finding. OpenCV and the codec libraries are not instrumented: within them only a crash or
// a hang shows, not a silent out-of-bounds read.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "docsift/error.h"
#include "docsift/io/image_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = memfd_create("docsift-fuzz-image", MFD_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  docsift::io::ImageLimits limits;
  limits.max_pixels = 4'000'000;  // small pages, so that each execution stays fast
  limits.max_file_bytes = 1 << 20;
  for (const bool accept_truncated : {false, true}) {
    limits.accept_truncated = accept_truncated;
    int pages = 1;
    try {
      pages = std::min(docsift::io::image_page_count(path), 4);
    } catch (const docsift::Error&) {
    }
    for (int page = 0; page < pages; ++page) {
      try {
        std::string said;
        const cv::Mat rgb = docsift::io::read_rgb_pixels(path, limits, page, &said);
        // What the tensor wrap and the readers after it rely on.
        if (rgb.empty() || rgb.type() != CV_8UC3 || !rgb.isContinuous()) __builtin_trap();
        if (static_cast<std::uint64_t>(rgb.rows) * static_cast<std::uint64_t>(rgb.cols) >
            limits.max_pixels)
          __builtin_trap();
      } catch (const docsift::Error&) {
      }
    }
  }
  ::close(fd);
  return 0;
}
