#include "docsift/model/checkpoint.h"

#include <algorithm>
#include <map>
#include <set>

#include "docsift/error.h"
#include "docsift/model/safetensors_index.h"
#include "docsift/strict_json.h"

namespace docsift::model {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";
constexpr std::size_t kMaxIndexBytes = 64u << 20;  // as read_json_file

bool is_pickle_weight(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt";
}

[[noreturn]] void refuse_pickles(const fs::path& dir, const std::string& example) {
  throw FileError(
      dir.string() + ": holds only pickled PyTorch weights (" + example +
      "); docsift never loads pickles because unpickling can run arbitrary code. Convert the "
      "checkpoint once with transformers: model = AutoModel.from_pretrained(DIR, "
      "trust_remote_code=True); model.save_pretrained(OUT, safe_serialization=True)");
}

// A checkpoint saved already quantized stores packed integers, zero points and group scales under
// names and shapes docsift would mis-read as plain weights; refuse it by its quantization_config
// (top level, or the nested text/LLM config) and name the scheme.
void refuse_quantized(const fs::path& config_path, const nlohmann::json& config) {
  for (const char* where : {"", "text_config", "llm_config", "vision_config"}) {
    const nlohmann::json* node = &config;
    if (*where != '\0') {
      const auto it = config.find(where);
      if (it == config.end() || !it->is_object()) continue;
      node = &*it;
    }
    const auto q = node->find("quantization_config");
    if (q == node->end() || q->is_null()) continue;
    std::string scheme = "unknown scheme";
    if (q->is_object()) {
      for (const char* key : {"quant_method", "quant_type", "format"}) {
        const auto k = q->find(key);
        if (k != q->end() && k->is_string()) {
          scheme = k->get<std::string>();
          break;
        }
      }
      if (scheme == "unknown scheme" &&
          (q->contains("load_in_8bit") || q->contains("load_in_4bit")))
        scheme = "bitsandbytes";
    }
    throw FileError(
        config_path.string() + ": this checkpoint is already quantized (" +
        (*where ? std::string(where) + "." : std::string()) + "quantization_config: " + scheme +
        "); docsift reads unquantized float32, float16 or bfloat16 safetensors checkpoints and "
        "quantizes them itself. Use the original model's folder and set model.quantization: int8");
  }
}

}  // namespace

Checkpoint::Checkpoint(const fs::path& dir, bool require_weights) : dir_(dir) {
  std::error_code ec;
  if (is_pickle_weight(dir) && fs::is_regular_file(dir, ec)) {
    refuse_pickles(dir.parent_path(), dir.filename().string());
  }
  if (!fs::exists(dir, ec)) {
    throw InputMissingError(dir.string() +
                            ": no such folder; pass the model folder that holds config.json and "
                            "the .safetensors weights");
  }
  if (!fs::is_directory(dir, ec)) {
    throw FileError(dir.string() +
                    ": not a folder; pass the model folder that holds config.json and the "
                    ".safetensors weights");
  }
  const fs::path config_path = dir / "config.json";
  if (!fs::is_regular_file(config_path, ec) && ec == std::errc::permission_denied) {
    throw InputUnreadableError(dir.string() + ": cannot read the model folder: " + ec.message() +
                               " (check its permissions and the user docsift runs as)");
  }
  if (!fs::is_regular_file(config_path, ec)) {
    throw FileError(dir.string() + ": no config.json; is this a Hugging Face model folder?");
  }
  // config.json of a multimodal model nests vision/text configs with rope_scaling etc.
  config_ = read_json_file(config_path.string(), /*max_depth=*/16);
  if (!config_.is_object()) throw FileError(config_path.string() + ": top level is not an object");
  refuse_quantized(config_path, config_);

  const fs::path index_path = dir / kIndexFile;
  const fs::path single_path = dir / kSingleFile;
  if (fs::is_regular_file(index_path, ec)) {
    const auto names_by_shard = parse_safetensors_index(
        read_text_file(index_path.string(), kMaxIndexBytes), index_path.string());
    for (const auto& [shard, names] : names_by_shard) {
      const fs::path shard_path = dir / shard;
      if (!fs::is_regular_file(shard_path, ec)) {
        throw FileError(index_path.string() + ": lists shard " + shard +
                        ", which is missing from the folder (incomplete download?)");
      }
      auto file = std::make_unique<SafetensorsFile>(shard_path);
      for (const auto& name : names) {
        if (file->find(name) == nullptr) {
          throw FileError(shard_path.string() + ": has no tensor '" + name + "', which " +
                          kIndexFile + " places there");
        }
      }
      for (const auto& t : file->header().tensors) {
        if (!names.contains(t.name)) {
          throw FileError(shard_path.string() + ": holds tensor '" + t.name + "', which " +
                          kIndexFile + " does not place there");
        }
      }
      add_file(std::move(file));
    }
  } else if (fs::is_regular_file(single_path, ec)) {
    add_file(std::make_unique<SafetensorsFile>(single_path));
  } else {
    std::vector<std::string> safetensors, pickles;
    for (const auto& item : fs::directory_iterator(dir, ec)) {
      const auto name = item.path().filename().string();
      if (item.path().extension() == ".safetensors") safetensors.push_back(name);
      if (is_pickle_weight(item.path())) pickles.push_back(name);
    }
    std::sort(safetensors.begin(), safetensors.end());
    if (safetensors.size() == 1) {
      add_file(std::make_unique<SafetensorsFile>(dir / safetensors.front()));
    } else if (safetensors.size() > 1) {
      throw FileError(dir.string() + ": has " + std::to_string(safetensors.size()) +
                      " .safetensors files but no " + kIndexFile +
                      " saying which tensor is where; restore the index file");
    } else if (!pickles.empty()) {
      refuse_pickles(dir, pickles.front());
    } else if (require_weights) {
      throw FileError(dir.string() + ": no " + kSingleFile + " or " + kIndexFile +
                      " (weights missing? docsift reads safetensors checkpoints)");
    }
  }
}

void Checkpoint::add_file(std::unique_ptr<SafetensorsFile> file) {
  for (const auto& t : file->header().tensors) {
    const auto [it, inserted] = by_name_.emplace(t.name, Location{file.get(), &t});
    if (!inserted) {
      throw FileError(dir_.string() + ": tensor '" + t.name + "' appears in both " +
                      it->second.file->path().filename().string() + " and " +
                      file->path().filename().string());
    }
  }
  files_.push_back(std::move(file));
}

std::vector<const TensorEntry*> Checkpoint::entries() const {
  std::vector<const TensorEntry*> out;
  out.reserve(by_name_.size());
  for (const auto& [name, loc] : by_name_) out.push_back(loc.entry);
  return out;
}

const TensorEntry* Checkpoint::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second.entry;
}

const Checkpoint::Location& Checkpoint::locate(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    throw FileError(dir_.string() + ": checkpoint has no tensor '" + name + "'");
  }
  return it->second;
}

at::Tensor Checkpoint::load(const std::string& name, at::ScalarType dtype,
                            at::Device device) const {
  return locate(name).file->load(name, dtype, device);
}

at::Tensor Checkpoint::view(const std::string& name) const { return locate(name).file->view(name); }

void Checkpoint::release(const std::string& name) const { locate(name).file->release(name); }

}  // namespace docsift::model
