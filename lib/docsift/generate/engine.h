// A model folder ready to generate from: the tokenizer and chat template (read once) and the
// weights, which can be dropped and loaded again on another device or in another dtype. The
// tier ladder drives it; it never catches anything itself.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <memory>

#include "docsift/model/checkpoint.h"
#include "docsift/model/internvl.h"
#include "docsift/text/chat_template.h"

namespace docsift::generate {

class Engine {
 public:
  // Reads config.json, the safetensors headers and the tokenizer; loads no weights. Throws
  // docsift::FileError for anything missing or malformed.
  // With `require_weights` false a folder without weight files is accepted (`inspect` plans it from
  // config.json); load() then throws.
  explicit Engine(const std::filesystem::path& model_dir, bool require_weights = true);
  ~Engine();

  // Loads the weights in `dtype` onto `device`. The model already loaded, if any, is destroyed
  // first, so two copies never coexist.
  void load(at::Device device, const model::Numerics& numerics);
  void unload();
  bool loaded() const { return model_ != nullptr; }
  bool loaded_as(at::Device device, const model::Numerics& numerics) const;
  int loads() const { return loads_; }  // how many times weights were loaded

  const model::InternVLModel& model() const;  // throws docsift::Error when nothing is loaded
  const model::Checkpoint& checkpoint() const { return checkpoint_; }
  const model::InternVLConfig& config() const { return config_; }
  const text::ChatTemplate& chat() const { return chat_; }
  const text::Tokenizer& tokenizer() const { return chat_.tokenizer(); }
  // The shapes the memory plan needs (parameters counted from the safetensors headers).
  const memory::ModelShape& memory_shape() const { return memory_shape_; }

 private:
  model::Checkpoint checkpoint_;
  model::InternVLConfig config_;
  text::ChatTemplate chat_;
  memory::ModelShape memory_shape_;
  std::unique_ptr<model::InternVLModel> model_;
  int loads_ = 0;
};

}  // namespace docsift::generate
