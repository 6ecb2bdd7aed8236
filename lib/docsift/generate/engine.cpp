#include "docsift/generate/engine.h"

#include "docsift/error.h"
#include "docsift/model/inspect.h"

namespace docsift::generate {
namespace {

text::ChatTemplate chat_for(const model::Checkpoint& checkpoint, const model::InternVLConfig& config) {
  const bool original = config.layout == model::InternVLConfig::Layout::kOriginal;
  return text::ChatTemplate(original ? text::ChatFormat::kInternVL : text::ChatFormat::kInternVLHf,
                            text::Tokenizer::load(checkpoint.dir()));
}

}  // namespace

Engine::Engine(const std::filesystem::path& model_dir, bool require_weights)
    : checkpoint_(model_dir, require_weights),
      config_(model::parse_internvl_config(checkpoint_.config(), (model_dir / "config.json").string())),
      chat_(chat_for(checkpoint_, config_)) {
  // The original layout's config.json does not name the image token; the tokenizer does. The
  // -hf layout names it, and the two must agree.
  if (config_.layout == model::InternVLConfig::Layout::kOriginal) {
    config_.image_token_id = chat_.image_token_id();
  } else if (config_.image_token_id != chat_.image_token_id()) {
    throw FileError(model_dir.string() + ": config.json's image_token_id " + std::to_string(config_.image_token_id) +
                    " is not the tokenizer's <IMG_CONTEXT> (" + std::to_string(chat_.image_token_id()) + ")");
  }
  memory_shape_ = model::memory_shape(config_, checkpoint_.has_weights() ? model::summarize(checkpoint_).total.parameters
                                                                         : model::parameter_count(config_));
}

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
  auto model = std::make_unique<model::InternVLModel>(checkpoint_, numerics, device);
  model->set_image_token_id(config_.image_token_id);
  model_ = std::move(model);
  ++loads_;
}

void Engine::unload() { model_.reset(); }

const model::InternVLModel& Engine::model() const {
  if (!model_) throw Error(checkpoint_.dir().string() + ": no model is loaded");
  return *model_;
}

}  // namespace docsift::generate
