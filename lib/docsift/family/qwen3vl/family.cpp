#include "docsift/family/qwen3vl/family.h"

#include "docsift/family/patch_family.h"
#include "docsift/family/qwen3vl/chat.h"
#include "docsift/family/qwen3vl/config.h"
#include "docsift/family/qwen3vl/model.h"
#include "docsift/model/checkpoint.h"

namespace docsift::family::qwen3vl {
namespace {

class Qwen3VLFamily final : public PatchFamily {
 public:
  Qwen3VLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options)
      : Qwen3VLFamily(checkpoint, options,
                      parse_qwen3vl_config(checkpoint.config(),
                                           (checkpoint.dir() / "config.json").string())) {}

  std::string_view name() const override { return "qwen3-vl"; }
  std::unique_ptr<Model> load(const model::Checkpoint& checkpoint, const model::Numerics& numerics,
                              at::Device device) const override {
    return std::make_unique<Qwen3VLModel>(checkpoint, config_, numerics, device);
  }

 private:
  Qwen3VLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options,
                Qwen3VLConfig config)
      : PatchFamily(
            checkpoint, options,
            {config.vision.grid(), chat_format(), "Qwen3-VL", kTokenBudget, config.image_token_id,
             config.vision_start_token_id, config.vision_end_token_id}),
        config_(std::move(config)) {
    config_.image_token_id = image_token_id();
    // auto: the processor transformers 5 loads for these files, its torchvision backend unless
    // the file names the Pillow one (the release names Qwen2VLImageProcessorFast).
    choose_resample(options.resample,
                    image_config().pil ? image::Resample::Pil : image::Resample::Torch);
    set_memory_shape(qwen3vl::memory_shape(config_, image_config().max_pixels,
                                           parameters(checkpoint, parameter_count(config_))));
  }

  Qwen3VLConfig config_;
};

}  // namespace

std::unique_ptr<Family> open_qwen3vl(const model::Checkpoint& checkpoint,
                                     const FamilyOptions& options) {
  return std::make_unique<Qwen3VLFamily>(checkpoint, options);
}

}  // namespace docsift::family::qwen3vl
