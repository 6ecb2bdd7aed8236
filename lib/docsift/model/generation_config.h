// generation_config.json: the ids a checkpoint's generation stops at. Torch-free, so that the fuzz
// build (tests/fuzz/fuzz_generation_config.cpp) reads it as the families do.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::model {

// What docsift takes from generation_config.json: only the end-of-sequence ids, because
// transformers' generate() stops at them and the weights were tuned to end their answers with
// them (docs/models.md, "Stop tokens"). Every other key (do_sample, temperature, top_p, ...) is
// ignored: docsift's decoding settings come from its own config's generation.* keys, greedy
// unless they say otherwise (docs/config.md).
struct GenerationConfig {
  std::vector<int32_t> eos_token_ids;  // in the file's order; empty when it names none
};

// The most ids an "eos_token_id" list may hold; real ones hold one to three.
inline constexpr std::size_t kMaxGenerationEosIds = 10'000;
// The largest generation_config.json read; real ones are under 1 KiB.
inline constexpr std::size_t kMaxGenerationConfigBytes = 1u << 20;

// `text` is the file's content; `source` (its path) starts every message. "eos_token_id" may be
// absent or null (no ids), one integer, or a list of integers, as transformers accepts. Throws
// docsift::FileError for malformed JSON (strict_json.h: duplicate keys too), a top level that is
// not an object, and an eos_token_id that is anything else: a string, a float, a bool, a negative
// id, one over INT32_MAX, a list inside the list, or more than kMaxGenerationEosIds ids.
GenerationConfig parse_generation_config(std::string_view text, const std::string& source);

// checkpoint_dir/generation_config.json, parsed; nullopt when the folder has none (the file is
// optional, as it is to transformers). A file that is not a regular file or is larger
// than kMaxGenerationConfigBytes is refused before any of it is read.
std::optional<GenerationConfig> read_generation_config(const std::filesystem::path& checkpoint_dir);

}  // namespace docsift::model
