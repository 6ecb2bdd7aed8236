// The families docsift knows, and how a checkpoint folder is matched to one. A new family adds
// its folder and one line to kFamilies.
#include <array>

#include "docsift/error.h"
#include "docsift/family/family.h"
#include "docsift/family/internvl/family.h"
#include "docsift/family/mllama/family.h"
#include "docsift/model/checkpoint.h"

namespace docsift::family {
namespace {

struct Entry {
  const char* label;                 // for messages
  std::array<const char*, 2> model_types;     // config.json "model_type" values ("" unused)
  std::array<const char*, 2> architectures;   // config.json "architectures"[0] values ("" unused)
  std::unique_ptr<Family> (*open)(const model::Checkpoint&, const FamilyOptions&);
};

constexpr std::array<Entry, 2> kFamilies{{
    {"InternVL3/3.5", {"internvl_chat", "internvl"}, {"InternVLChatModel", "InternVLForConditionalGeneration"},
     &internvl::open_internvl},
    {"Llama 3.2 Vision", {"mllama", ""}, {"MllamaForConditionalGeneration", ""}, &mllama::open_mllama},
}};

bool listed(const std::array<const char*, 2>& names, const std::string& value) {
  for (const char* n : names) {
    if (*n != '\0' && value == n) return true;
  }
  return false;
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

std::unique_ptr<Family> open_family(const model::Checkpoint& checkpoint, const FamilyOptions& options) {
  const nlohmann::json& config = checkpoint.config();
  const std::string type = config.contains("model_type") && config["model_type"].is_string()
                               ? config["model_type"].get<std::string>()
                               : "";
  const nlohmann::json* archs = config.contains("architectures") ? &config["architectures"] : nullptr;
  const std::string arch = archs && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
                               ? (*archs)[0].get<std::string>()
                               : "";
  // model_type first; a config without one (older exports) is matched by its architecture.
  for (const Entry& e : kFamilies) {
    if (listed(e.model_types, type) || (type.empty() && listed(e.architectures, arch))) return e.open(checkpoint, options);
  }
  throw FileError((checkpoint.dir() / "config.json").string() + ": model_type \"" + type + "\"" +
                  (arch.empty() ? std::string() : " (architecture " + arch + ")") +
                  " is not a model docsift runs; supported: " + supported_model_types());
}

}  // namespace docsift::family
