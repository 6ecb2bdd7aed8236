// libFuzzer target: a config file or a --set as a user (or a hostile file) writes it. Every
// problem must be a docsift::ConfigError naming the key; any other exception, or a crash, is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "docsift/config/config.h"
#include "docsift/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const docsift::config::Config config = docsift::config::from_yaml(text, "fuzz.yaml");
    // What was accepted must write back and read back the same (the worker gets it this way).
    const std::string yaml = docsift::config::to_yaml(config);
    if (docsift::config::to_yaml(docsift::config::from_yaml(yaml, "round trip")) != yaml)
      __builtin_trap();
  } catch (const docsift::ConfigError&) {
  }
  if (size < 512 && text.find('\n') == std::string::npos) {
    docsift::config::Config config;
    try {
      docsift::config::apply_override(config, text);
    } catch (const docsift::ConfigError&) {
    }
  }
  return 0;
}
