// `docsift inspect`: what a checkpoint folder holds, from config.json and the safetensors
// headers alone (no weight data is read).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::model {

class Checkpoint;

// Which part of a vision-language model a tensor belongs to, from its name, for both the
// original and the transformers-native layouts: "vision", "projector", "language" or "other".
std::string_view model_part(std::string_view tensor_name);

struct PartSummary {
  std::string part;
  std::uint64_t tensors = 0;
  std::uint64_t parameters = 0;
  std::uint64_t bytes = 0;
  std::map<std::string, std::uint64_t> parameters_by_dtype;
};

struct ModelSummary {
  std::string dir;
  std::string architecture;  // config.json "architectures"[0], empty when absent
  std::string model_type;
  std::vector<std::string> files;
  std::uint64_t file_bytes = 0;
  std::vector<PartSummary> parts;  // vision, projector, language, other; empty parts omitted
  PartSummary total;
};

ModelSummary summarize(const Checkpoint& checkpoint);
nlohmann::json to_json(const ModelSummary& summary);
std::string to_text(const ModelSummary& summary);

}  // namespace docsift::model
