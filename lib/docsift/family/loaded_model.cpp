#include "docsift/family/loaded_model.h"

#include "docsift/error.h"

namespace docsift::family {

LoadedModel::LoadedModel(const std::filesystem::path& model_dir, bool require_weights,
                         const FamilyOptions& options)
    : checkpoint_(model_dir, require_weights), family_(open_family(checkpoint_, options)) {}

LoadedModel::~LoadedModel() = default;

bool LoadedModel::loaded_as(at::Device device, const model::Numerics& numerics) const {
  return model_ && model_->device() == device && model_->numerics() == numerics;
}

void LoadedModel::load(at::Device device, const model::Numerics& numerics) {
  unload();  // before constructing: the old weights' memory must be free for the new ones
  if (!checkpoint_.has_weights()) {
    throw FileError(checkpoint_.dir().string() +
                    ": no weight files (.safetensors); `docsift inspect` can plan such a folder "
                    "from config.json, but generating needs the weights");
  }
  model_ = family_->load(checkpoint_, numerics, device);
  ++loads_;
}

void LoadedModel::unload() { model_.reset(); }

const Model& LoadedModel::model() const {
  if (!model_) throw Error(checkpoint_.dir().string() + ": no model is loaded");
  return *model_;
}

}  // namespace docsift::family
