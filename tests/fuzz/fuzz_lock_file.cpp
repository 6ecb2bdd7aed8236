// libFuzzer target: the output lock file's text (batch/lock.h), as a refused or a taking-over run
// reads it (the first 64 bytes). A record is exactly "PID run" or "PID merge" with a pid from 1 to
// the largest pid_t, and writes back as the same text; anything else is quoted for the message
// with no control byte left in it. Neither throws.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "docsift/journal/lock.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size < 64 ? size : 64);
  if (const auto record = docsift::journal::parse_lock_record(text)) {
    const auto& [pid, what] = *record;
    if (pid < 1 || (what != "run" && what != "merge")) std::abort();
    if (std::to_string(pid) + " " + what != text && text.front() != '+' && text.front() != '0')
      std::abort();
  }
  const std::string quoted = docsift::journal::quote_lock_text(text);
  if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') std::abort();
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    const auto c = static_cast<unsigned char>(quoted[i]);
    if (c < 0x20 || c == 0x7f || c == '"') std::abort();
  }
  return 0;
}
