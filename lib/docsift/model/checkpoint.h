// A Hugging Face checkpoint folder: config.json plus one model.safetensors or shards listed in
// model.safetensors.index.json. Pickled weights are refused: loading them can run code.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/model/safetensors.h"

namespace docsift::model {

class Checkpoint {
 public:
  // Reads config.json and every safetensors header (no weight data). Throws docsift::FileError
  // naming the folder and file for anything missing or malformed, and for a checkpoint that is
  // already quantized (a quantization_config: GPTQ, AWQ, bitsandbytes, fp8...), which docsift
  // does not read. With `require_weights` false, a folder with config.json but no weight files at
  // all is accepted (nothing to load; `inspect` plans from the config's shapes).
  explicit Checkpoint(const std::filesystem::path& dir, bool require_weights = true);
  bool has_weights() const { return !files_.empty(); }

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& config() const { return config_; }
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }

  // Every tensor, sorted by name.
  std::vector<const TensorEntry*> entries() const;
  const TensorEntry* find(const std::string& name) const;
  at::Tensor load(const std::string& name, at::ScalarType dtype, at::Device device) const;
  // The stored tensor as a zero-copy CPU view of the mapping, and dropping its pages once a
  // caller has made what it needs from it (the int8 quantizer reads it block by block).
  at::Tensor view(const std::string& name) const;
  void release(const std::string& name) const;

 private:
  struct Location {
    const SafetensorsFile* file;
    const TensorEntry* entry;
  };
  void add_file(std::unique_ptr<SafetensorsFile> file);
  const Location& locate(const std::string& name) const;

  std::filesystem::path dir_;
  nlohmann::json config_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, Location> by_name_;
};

}  // namespace docsift::model
