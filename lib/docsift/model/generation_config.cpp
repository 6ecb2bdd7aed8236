#include "docsift/model/generation_config.h"

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::model {
namespace {

using nlohmann::json;

// The keys docsift ignores may nest (bad_words_ids and forced_decoder_ids are lists of lists, at
// depth 3); 16 leaves room for them while bounding what an untrusted file can make us build.
constexpr int kMaxDepth = 16;

constexpr std::string_view kExpected =
    "it must be a token id or a list of token ids (integers from 0 to 2147483647), as transformers "
    "writes it; fix or remove the key";

// "a string", "an object", "a float": the JSON type with its article, for messages.
std::string kind_of(const json& value) {
  if (value.is_number_float()) return "a float";
  const std::string name = value.type_name();
  return (name == "object" || name == "array" ? "an " : "a ") + name;
}

// The kind and the value itself, cut short: the message quotes what the file says.
std::string describe(const json& value) {
  std::string text = value.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return kind_of(value) + " (" + text + ")";
}

int32_t token_id(const json& value, const std::string& source, const char* where) {
  const auto refuse = [&](const std::string& what) -> int32_t {
    throw FileError(source + ": eos_token_id" + where + " is " + what + "; " +
                    std::string(kExpected));
  };
  // nlohmann reads a non-negative integer as unsigned and a negative one as signed; a float
  // (1.0, 1e3, or an integer too large for 64 bits) is neither.
  if (value.is_number_unsigned()) {
    const auto id = value.get<std::uint64_t>();
    if (id > static_cast<std::uint64_t>(std::numeric_limits<int32_t>::max())) {
      return refuse(std::to_string(id) + ", over the largest token id 2147483647");
    }
    return static_cast<int32_t>(id);
  }
  if (value.is_number_integer())
    return refuse("negative (" + std::to_string(value.get<std::int64_t>()) + ")");
  if (value.is_array()) return refuse("a list inside the list");
  return refuse(describe(value));
}

}  // namespace

GenerationConfig parse_generation_config(std::string_view text, const std::string& source) {
  const json root = parse_json_strict(text, source, kMaxDepth);
  if (!root.is_object()) {
    throw FileError(source + ": the top level is " + kind_of(root) +
                    ", not an object; a generation_config.json is a JSON object (as transformers' "
                    "save_pretrained writes it)");
  }
  GenerationConfig config;
  const auto eos = root.find("eos_token_id");
  // Absent or null: transformers' None, no end-of-sequence id of its own.
  if (eos == root.end() || eos->is_null()) return config;
  if (!eos->is_array()) {
    config.eos_token_ids.push_back(token_id(*eos, source, ""));
    return config;
  }
  if (eos->size() > kMaxGenerationEosIds) {
    throw FileError(source + ": eos_token_id lists " + std::to_string(eos->size()) +
                    " ids, more than the " + std::to_string(kMaxGenerationEosIds) +
                    " docsift accepts (real checkpoints list one to three); is this the "
                    "checkpoint's own generation_config.json?");
  }
  config.eos_token_ids.reserve(eos->size());
  for (std::size_t i = 0; i < eos->size(); ++i) {
    const std::string where = std::string("[").append(std::to_string(i)).append("]");
    config.eos_token_ids.push_back(token_id((*eos)[i], source, where.c_str()));
  }
  return config;
}

std::optional<GenerationConfig> read_generation_config(
    const std::filesystem::path& checkpoint_dir) {
  const std::filesystem::path path = checkpoint_dir / "generation_config.json";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;
  // Capped on the opened file, a FIFO or folder by that name refused unread (strict_json.h).
  return parse_generation_config(read_text_file(path.string(), kMaxGenerationConfigBytes),
                                 path.string());
}

}  // namespace docsift::model
