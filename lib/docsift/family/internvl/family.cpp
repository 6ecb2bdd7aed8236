#include "docsift/family/internvl/family.h"

#include "docsift/error.h"
#include "docsift/family/internvl/chat.h"
#include "docsift/family/internvl/model.h"
#include "docsift/family/internvl/tiles.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/generation_config.h"
#include "docsift/model/inspect.h"

namespace docsift::family::internvl {
namespace {

class InternVLFamily final : public Family {
 public:
  InternVLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options)
      : config_(parse_internvl_config(checkpoint.config(),
                                      (checkpoint.dir() / "config.json").string())),
        chat_(chat_format(config_.layout == InternVLConfig::Layout::kOriginal,
                          config_.tokens_per_tile()),
              text::Tokenizer::load(checkpoint.dir())),
        // auto: what each layout's reference code does: the original chat() resizes PIL images,
        // the -hf processor resizes tensors with torchvision.
        resample_(options.resample != image::Resample::Auto             ? options.resample
                  : config_.layout == InternVLConfig::Layout::kOriginal ? image::Resample::Pil
                                                                        : image::Resample::Torch) {
    // The original layout's config.json does not name the image token; the tokenizer does. The
    // -hf layout names it, and the two must agree.
    if (config_.layout == InternVLConfig::Layout::kOriginal) {
      config_.image_token_id = chat_.image_token_id();
    } else if (config_.image_token_id != chat_.image_token_id()) {
      throw FileError(checkpoint.dir().string() + ": config.json's image_token_id " +
                      std::to_string(config_.image_token_id) +
                      " is not the tokenizer's <IMG_CONTEXT> (" +
                      std::to_string(chat_.image_token_id()) + ")");
    }
    // transformers' generate() also stops at generation_config.json's eos ids: stop where the
    // weights were tuned to stop (docs/models.md, "Stop tokens").
    if (const auto generation = model::read_generation_config(checkpoint.dir())) {
      chat_.add_stop_ids(generation->eos_token_ids,
                         (checkpoint.dir() / "generation_config.json").string());
    }
    // InternVL3.5-Flash adds a visual resolution router and a second projector (a 64-token pixel
    // shuffle) beside mlp1; docsift implements one projector, so such weights are refused by name
    // before anything loads.
    for (const model::TensorEntry* entry : checkpoint.entries()) {
      const std::string& n = entry->name;
      if (n.starts_with("mlp2.") || n.find(".mlp2.") != std::string::npos ||
          n.find("router") != std::string::npos) {
        throw FileError(checkpoint.dir().string() + ": tensor " + n +
                        " belongs to an InternVL3.5-Flash checkpoint (a visual resolution router "
                        "and a second projector), which docsift does not run; it reads InternVL3 "
                        "and InternVL3.5 (dense Qwen3)");
      }
    }
    shape_ = internvl::memory_shape(config_, checkpoint.has_weights()
                                                 ? model::summarize(checkpoint).total.parameters
                                                 : internvl::parameter_count(config_));
  }

  std::string_view name() const override {
    return config_.text.qk_norm ? "internvl3.5" : "internvl3";
  }
  const text::ChatTemplate& chat() const override { return chat_; }
  ImageInputs preprocess(const at::Tensor& rgb_hwc, int max_tiles) const override {
    const InternVLImage image = preprocess_internvl(rgb_hwc, max_tiles, 448, resample_);
    ImageInputs in(image.pixel_values);
    in.columns = image.grid.columns;
    in.rows = image.grid.rows;
    return in;
  }
  int plan_tiles(int max_tiles) const override {
    return max_tiles > 1 ? max_tiles + 1 : 1;
  }  // + thumbnail
  int auto_max_new_tokens(const extract::FieldSchema& schema) const override {
    return extract::auto_max_new_tokens(schema, kTokenBudget);
  }
  const memory::ModelShape& memory_shape() const override { return shape_; }
  std::unique_ptr<Model> load(const model::Checkpoint& checkpoint, const model::Numerics& numerics,
                              at::Device device) const override {
    auto m = std::make_unique<InternVLModel>(checkpoint, numerics, device);
    m->set_image_token_id(config_.image_token_id);
    return m;
  }

 private:
  InternVLConfig config_;
  text::ChatTemplate chat_;
  image::Resample resample_;
  memory::ModelShape shape_;
};

}  // namespace

std::unique_ptr<Family> open_internvl(const model::Checkpoint& checkpoint,
                                      const FamilyOptions& options) {
  return std::make_unique<InternVLFamily>(checkpoint, options);
}

}  // namespace docsift::family::internvl
