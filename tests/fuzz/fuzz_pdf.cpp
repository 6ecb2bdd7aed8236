// libFuzzer target: a PDF through Poppler as docsift reads one (io/pdf.h): open and count the
// pages, read the first page's text layer, render it at a small resolution. Problems must be
// docsift errors. Poppler itself is not instrumented; scripts/fuzz.sh runs this target with
// -fork=1 -ignore_crashes=1, so that a crash inside Poppler is recorded as a finding and the
// campaign goes on in a fresh child, as a worker would be replaced.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "docsift/error.h"
#include "docsift/io/pdf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("docsift-fuzz-pdf", 0);
  if (fd < 0) return 0;
  if (::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  docsift::io::ImageLimits limits;
  limits.max_pixels = 1'000'000;  // a page of any size renders small at 18 dpi; larger is refused
  try {
    if (docsift::io::pdf_page_count(path) > 0) {
      (void)docsift::io::read_pdf_text(path, 0);
      std::string said;
      (void)docsift::io::render_pdf_page(path, 0, 18, limits, &said);
    }
  } catch (const docsift::Error&) {
  }
  ::close(fd);
  return 0;
}
