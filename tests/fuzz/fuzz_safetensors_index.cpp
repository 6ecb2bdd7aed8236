// libFuzzer target: model.safetensors.index.json (model/safetensors_index.h), the map a sharded
// checkpoint's loader opens shards by. Parsing must succeed or throw docsift::Error; what it
// accepts names only plain ".safetensors" file names in the folder (no "/", no "..", not
// absolute: the names reach open()), each with at least one tensor.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "docsift/error.h"
#include "docsift/model/safetensors_index.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto shards =
        docsift::model::parse_safetensors_index(text, "fuzz/model.safetensors.index.json");
    if (shards.empty()) std::abort();
    for (const auto& [shard, names] : shards) {
      if (shard.find('/') != std::string_view::npos || shard == "." || shard == ".." ||
          shard.size() < 12 || !shard.ends_with(".safetensors") || names.empty()) {
        std::abort();  // a name that could leave the folder, or a shard with nothing in it
      }
    }
  } catch (const docsift::Error&) {
  }
  return 0;
}
