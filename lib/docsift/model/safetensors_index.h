// model.safetensors.index.json: which shard of a checkpoint holds each tensor. Torch-free, so that
// the fuzz build (tests/fuzz/fuzz_safetensors_index.cpp) reads it as Checkpoint does.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace docsift::model {

// The index's "weight_map" as shard file name → the tensor names it holds. `label` (the index's
// path) starts every message. Throws docsift::FileError for malformed JSON (strict_json.h, nesting
// over 4), no "weight_map" object, an entry that is not a string, an empty map, or a shard name
// that is not a plain ".safetensors" file name in the same folder ("../x", "/abs", "a/b"): the
// index is untrusted and such a name must not reach open().
std::map<std::string, std::set<std::string>> parse_safetensors_index(std::string_view text,
                                                                     const std::string& label);

}  // namespace docsift::model
