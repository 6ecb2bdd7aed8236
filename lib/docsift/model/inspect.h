// `docsift inspect`: what a checkpoint folder holds, from config.json and the safetensors
// headers alone (no weight data is read).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::model {

class Checkpoint;

// One row of a family's tensor-name layout (family/<name>/config.h declares its table): tensors
// whose name starts with `prefix` belong to `part`, "vision", "projector" or "language". The first
// row that matches wins, so a longer prefix goes before a shorter one it extends.
struct TensorPart {
  std::string_view prefix;
  std::string_view part;
};

// Which part a tensor belongs to under `layout`: its first matching row's, else "other".
std::string_view model_part(std::string_view tensor_name, std::span<const TensorPart> layout);

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

// Parts by `layout` (empty: every tensor is "other"; the total is the same).
ModelSummary summarize(const Checkpoint& checkpoint, std::span<const TensorPart> layout = {});
nlohmann::json to_json(const ModelSummary& summary);
std::string to_text(const ModelSummary& summary);

}  // namespace docsift::model
