#include "docsift/family/qwen25vl/family.h"

#include "docsift/family/patch_family.h"
#include "docsift/family/qwen25vl/chat.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/family/qwen25vl/model.h"
#include "docsift/model/checkpoint.h"

namespace docsift::family::qwen25vl {
namespace {

class Qwen25VLFamily final : public PatchFamily {
 public:
  Qwen25VLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options)
      : Qwen25VLFamily(checkpoint, options,
                       parse_qwen25vl_config(checkpoint.config(),
                                             (checkpoint.dir() / "config.json").string())) {}

  std::string_view name() const override { return "qwen2.5-vl"; }
  std::unique_ptr<Model> load(const model::Checkpoint& checkpoint, const model::Numerics& numerics,
                              at::Device device) const override {
    return std::make_unique<Qwen25VLModel>(checkpoint, config_, numerics, device);
  }

 private:
  Qwen25VLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options,
                 Qwen25VLConfig config)
      : PatchFamily(
            checkpoint, options,
            {config.vision.grid(), chat_format(), "Qwen2.5-VL", kTokenBudget, config.image_token_id,
             config.vision_start_token_id, config.vision_end_token_id}),
        config_(std::move(config)) {
    config_.image_token_id = image_token_id();
    // auto: the release's processor (transformers 4.x, Qwen2VLImageProcessor) resized PIL images;
    // the processor transformers 5 writes and loads resizes tensors with torchvision.
    choose_resample(options.resample,
                    config_.layout == Qwen25VLConfig::Layout::kHub && !image_config().torchvision
                        ? image::Resample::Pil
                        : image::Resample::Torch);
    set_memory_shape(qwen25vl::memory_shape(config_, image_config().max_pixels,
                                            parameters(checkpoint, parameter_count(config_))));
  }

  Qwen25VLConfig config_;
};

}  // namespace

std::unique_ptr<Family> open_qwen25vl(const model::Checkpoint& checkpoint,
                                      const FamilyOptions& options) {
  return std::make_unique<Qwen25VLFamily>(checkpoint, options);
}

}  // namespace docsift::family::qwen25vl
