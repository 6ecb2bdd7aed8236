// A model folder ready to generate from: its family (recognised from config.json, with the
// tokenizer and chat template read once) and the weights, which can be dropped and loaded again
// on another device or in another dtype. The tier ladder drives it; it never catches anything.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <memory>

#include "docsift/family/family.h"
#include "docsift/model/checkpoint.h"

namespace docsift::family {

class LoadedModel {
 public:
  // Reads config.json, the safetensors headers and the tokenizer; loads no weights. Throws
  // docsift::FileError for anything missing or malformed, and for a model_type docsift does not
  // run (the message lists the supported ones).
  // With `require_weights` false a folder without weight files is accepted (`inspect` plans it from
  // config.json); load() then throws.
  explicit LoadedModel(const std::filesystem::path& model_dir, bool require_weights = true,
                       const FamilyOptions& options = {});
  ~LoadedModel();

  // Loads the weights with `numerics` onto `device`. The model already loaded, if any, is
  // destroyed first, so two copies never coexist.
  void load(at::Device device, const model::Numerics& numerics);
  void unload();
  bool loaded() const { return model_ != nullptr; }
  bool loaded_as(at::Device device, const model::Numerics& numerics) const;
  int loads() const { return loads_; }  // how many times weights were loaded

  const Model& model() const;  // throws docsift::Error when nothing is loaded
  const Family& family() const { return *family_; }
  const model::Checkpoint& checkpoint() const { return checkpoint_; }
  const text::ChatTemplate& chat() const { return family_->chat(); }
  const text::Tokenizer& tokenizer() const { return chat().tokenizer(); }
  const memory::ModelShape& memory_shape() const { return family_->memory_shape(); }

 private:
  model::Checkpoint checkpoint_;
  std::unique_ptr<Family> family_;
  std::unique_ptr<Model> model_;
  int loads_ = 0;
};

}  // namespace docsift::family
