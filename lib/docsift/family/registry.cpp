// The families docsift knows, and how a checkpoint folder is matched to one. A new family adds
// its folder and one line to kFamilies.
#include <array>
#include <span>

#include "docsift/error.h"
#include "docsift/family/family.h"
#include "docsift/family/internvl/config.h"
#include "docsift/family/internvl/family.h"
#include "docsift/family/mllama/config.h"
#include "docsift/family/mllama/family.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/family/qwen25vl/family.h"
#include "docsift/family/qwen3vl/config.h"
#include "docsift/family/qwen3vl/family.h"
#include "docsift/model/checkpoint.h"

namespace docsift::family {
namespace {

struct Entry {
  const char* label;                         // for messages
  std::span<const model::TensorPart> parts;  // where its tensors live, for `inspect`
  std::span<const RefusedType> refused;      // neighbouring model types refused by name
  std::array<const char*, 2> model_types;    // config.json "model_type" values ("" unused)
  std::array<const char*, 2> architectures;  // config.json "architectures"[0] values ("" unused)
  std::unique_ptr<Family> (*open)(const model::Checkpoint&, const FamilyOptions&);
};

constexpr std::array<Entry, 4> kFamilies{{
    {"InternVL3/3.5",
     internvl::kTensorParts,
     {},
     {"internvl_chat", "internvl"},
     {"InternVLChatModel", "InternVLForConditionalGeneration"},
     &internvl::open_internvl},
    {"Llama 3.2 Vision",
     mllama::kTensorParts,
     {},
     {"mllama", ""},
     {"MllamaForConditionalGeneration", ""},
     &mllama::open_mllama},
    {"Qwen2.5-VL",
     qwen25vl::kTensorParts,
     qwen25vl::kRefusedTypes,
     {"qwen2_5_vl", ""},
     {"Qwen2_5_VLForConditionalGeneration", ""},
     &qwen25vl::open_qwen25vl},
    {"Qwen3-VL",
     qwen3vl::kTensorParts,
     qwen3vl::kRefusedTypes,
     {"qwen3_vl", ""},
     {"Qwen3VLForConditionalGeneration", ""},
     &qwen3vl::open_qwen3vl},
}};

bool listed(const std::array<const char*, 2>& names, const std::string& value) {
  for (const char* n : names) {
    if (*n != '\0' && value == n) return true;
  }
  return false;
}

std::string string_at(const nlohmann::json& config, const char* key) {
  const auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : "";
}

// The entry for config.json: model_type first; a config without one (older exports) is matched
// by its architecture. nullptr: no family docsift runs.
const Entry* find_entry(const nlohmann::json& config, std::string& type, std::string& arch) {
  type = string_at(config, "model_type");
  const auto archs = config.find("architectures");
  arch = archs != config.end() && archs->is_array() && !archs->empty() && archs->front().is_string()
             ? archs->front().get<std::string>()
             : "";
  for (const Entry& e : kFamilies) {
    if (listed(e.model_types, type) || (type.empty() && listed(e.architectures, arch))) return &e;
  }
  return nullptr;
}

}  // namespace

std::string supported_model_types() {
  std::string out;
  for (const Entry& e : kFamilies) {
    for (const char* t : e.model_types) {
      if (*t == '\0') continue;
      if (!out.empty()) out += ", ";
      out += std::string(t) + " (" + e.label + ")";
    }
  }
  return out;
}

std::span<const model::TensorPart> tensor_parts(const nlohmann::json& config) {
  std::string type, arch;
  const Entry* e = config.is_object() ? find_entry(config, type, arch) : nullptr;
  return e != nullptr ? e->parts : std::span<const model::TensorPart>();
}

std::unique_ptr<Family> open_family(const model::Checkpoint& checkpoint,
                                    const FamilyOptions& options) {
  const std::string file = (checkpoint.dir() / "config.json").string();
  std::string type, arch;
  if (const Entry* e = find_entry(checkpoint.config(), type, arch))
    return e->open(checkpoint, options);
  for (const Entry& e : kFamilies) {
    for (const RefusedType& r : e.refused) {
      if (type == r.model_type)
        throw FileError(file + ": model_type \"" + type + "\": " + std::string(r.why));
    }
  }
  throw FileError(file + ": model_type \"" + type + "\"" +
                  (arch.empty() ? std::string() : " (architecture " + arch + ")") +
                  " is not a model docsift runs; supported: " + supported_model_types());
}

}  // namespace docsift::family
