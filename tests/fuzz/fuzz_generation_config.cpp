// libFuzzer target: generation_config.json (model/generation_config.h), whose eos ids become stop
// tokens of generation. Parsing must succeed or throw docsift::Error; what it accepts is at most
// kMaxGenerationEosIds ids, each a valid non-negative int32 token id.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "docsift/error.h"
#include "docsift/model/generation_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto config =
        docsift::model::parse_generation_config(text, "fuzz/generation_config.json");
    if (config.eos_token_ids.size() > docsift::model::kMaxGenerationEosIds) std::abort();
    for (const std::int32_t id : config.eos_token_ids) {
      if (id < 0) std::abort();  // a negative id would index out of the vocabulary
    }
  } catch (const docsift::Error&) {
  }
  return 0;
}
