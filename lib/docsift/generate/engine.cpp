#include "docsift/generate/engine.h"

#include "docsift/error.h"

namespace docsift::generate {

Engine::Engine(const std::filesystem::path& model_dir, bool require_weights, const family::FamilyOptions& options)
    : checkpoint_(model_dir, require_weights), family_(family::open_family(checkpoint_, options)) {}

Engine::~Engine() = default;

bool Engine::loaded_as(at::Device device, const model::Numerics& numerics) const {
  return model_ && model_->device() == device && model_->numerics() == numerics;
}

void Engine::load(at::Device device, const model::Numerics& numerics) {
  unload();  // before constructing: the old weights' memory must be free for the new ones
  if (!checkpoint_.has_weights()) {
    throw FileError(checkpoint_.dir().string() + ": no weight files (.safetensors); `docsift inspect` can plan such a "
                                                 "folder from config.json, but generating needs the weights");
  }
  model_ = family_->load(checkpoint_, numerics, device);
  ++loads_;
}

void Engine::unload() { model_.reset(); }

const family::Model& Engine::model() const {
  if (!model_) throw Error(checkpoint_.dir().string() + ": no model is loaded");
  return *model_;
}

}  // namespace docsift::generate
