// libFuzzer target: files docsift reads whole from a path a user gives: an OCR rules file
// (ocr.rules) and a CSV (ground truth, predictions). Problems must be docsift errors naming the
// file, never a crash or a library exception (yaml-cpp's included).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "docsift/error.h"
#include "docsift/io/csv.h"
#include "docsift/ocr/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The bytes as a file with a path, in memory.
  const int fd = ::memfd_create("docsift-fuzz", 0);
  if (fd < 0) return 0;
  if (::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    (void)docsift::ocr::load_rules(path);
  } catch (const docsift::Error&) {
  }
  try {
    (void)docsift::io::read_csv(path);
  } catch (const docsift::Error&) {
  }
  ::close(fd);
  return 0;
}
