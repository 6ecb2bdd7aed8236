#include "docsift/family/mllama/family.h"

#include <algorithm>

#include "docsift/error.h"
#include "docsift/family/mllama/chat.h"
#include "docsift/family/mllama/model.h"
#include "docsift/family/mllama/tiles.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/generation_config.h"
#include "docsift/model/inspect.h"

namespace docsift::family::mllama {
namespace {

class MllamaFamily final : public Family {
 public:
  MllamaFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options)
      : config_(
            parse_mllama_config(checkpoint.config(), (checkpoint.dir() / "config.json").string())),
        chat_(chat_format(), text::Tokenizer::load(checkpoint.dir())),
        rows_(cross_attention_rows(options.settings)) {
    if (config_.image_token_id != chat_.image_token_id()) {
      throw FileError(checkpoint.dir().string() + ": config.json's image_token_index " +
                      std::to_string(config_.image_token_id) +
                      " is not the tokenizer's <|image|> (" +
                      std::to_string(chat_.image_token_id()) + ")");
    }
    // transformers' generate() also stops at generation_config.json's eos ids: stop where the
    // weights were tuned to stop (docs/models.md, "Stop tokens").
    if (const auto generation = model::read_generation_config(checkpoint.dir())) {
      chat_.add_stop_ids(generation->eos_token_ids,
                         (checkpoint.dir() / "generation_config.json").string());
    }
    shape_ = mllama::memory_shape(config_, checkpoint.has_weights()
                                               ? model::summarize(checkpoint).total.parameters
                                               : mllama::parameter_count(config_));
  }

  std::string_view name() const override { return "llama32-vision"; }
  const text::ChatTemplate& chat() const override { return chat_; }
  ImageInputs preprocess(const at::Tensor& rgb_hwc, int max_tiles) const override {
    const MllamaVisionConfig& v = config_.vision;
    const MllamaImage image = preprocess_mllama(rgb_hwc, max_tiles, static_cast<int>(v.image_size),
                                                static_cast<int>(v.max_num_tiles), v.aspect_ratios);
    ImageInputs in;
    in.pixel_values = image.pixel_values;
    in.tiles = image.canvas.tiles();
    in.columns = image.canvas.columns;
    in.rows = image.canvas.rows;
    in.family_part = image.canvas;  // the encoder reads its arrangement (aspect ratio id)
    return in;
  }
  int plan_tiles(int max_tiles) const override {
    return std::min(max_tiles, static_cast<int>(config_.vision.max_num_tiles));
  }
  int auto_max_new_tokens(const extract::FieldSchema& schema) const override {
    return extract::auto_max_new_tokens(schema, kTokenBudget);
  }
  const memory::ModelShape& memory_shape() const override { return shape_; }
  std::unique_ptr<Model> load(const model::Checkpoint& checkpoint, const model::Numerics& numerics,
                              at::Device device) const override {
    return std::make_unique<MllamaModel>(checkpoint, numerics, device, rows_);
  }

 private:
  MllamaConfig config_;
  text::ChatTemplate chat_;
  CrossAttentionRows rows_;
  memory::ModelShape shape_;
};

}  // namespace

std::unique_ptr<Family> open_mllama(const model::Checkpoint& checkpoint,
                                    const FamilyOptions& options) {
  return std::make_unique<MllamaFamily>(checkpoint, options);
}

}  // namespace docsift::family::mllama
