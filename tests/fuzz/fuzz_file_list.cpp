// libFuzzer target: a --files-from list (io/file_list.h), one path a line or NUL-separated (the
// first input byte picks: even lines, odd NUL), read under a 4 KiB cap so that the cap is reached
// too. Reading must succeed or throw docsift::ConfigError (over the cap); what it returns holds no
// empty entry and no separator, and no more bytes than the list. (One '\r' before a line's end is
// taken off; "a\r\r\n" is the name "a\r", so an entry may end in '\r'.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "docsift/error.h"
#include "docsift/io/file_list.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool nul = data[0] % 2 == 1;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::istringstream in(text);
  try {
    const auto paths = docsift::io::read_file_list(in, nul, "fuzz", 4096);
    std::size_t bytes = 0;
    for (const std::string& path : paths) {
      if (path.empty() || path.find(nul ? '\0' : '\n') != std::string::npos) std::abort();
      bytes += path.size();
    }
    if (bytes > text.size() || bytes > 4096) std::abort();
  } catch (const docsift::ConfigError&) {
    if (text.size() <= 4096) std::abort();  // refused a list under the cap
  }
  return 0;
}
