// The family adapter the patch-processor families share (Qwen2.5-VL, Qwen3-VL): the image
// processor's settings lowered by vision.max_pixels, the chat template with the vision tokens
// checked against config.json and the checkpoint's stop ids, preprocessing to one image of merged
// patches, and the plan's prompt length. A family adds its name, its resize choice, its memory
// plan's terms and its model.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "docsift/extract/schema.h"
#include "docsift/family/family.h"
#include "docsift/family/patch_processor.h"
#include "docsift/image/resample.h"
#include "docsift/text/chat_template.h"

namespace docsift::family {

class PatchFamily : public Family {
 public:
  const text::ChatTemplate& chat() const override { return chat_; }
  // max_tiles does not apply: the image processor's pixel budget decides the size.
  ImageInputs preprocess(const at::Tensor& rgb_hwc, int max_tiles) const override;
  int plan_tiles(int /*max_tiles*/) const override { return 1; }
  int plan_prompt_units(int tiles) const override;
  int auto_max_new_tokens(const extract::FieldSchema& schema) const override;
  const memory::ModelShape& memory_shape() const override { return shape_; }

 protected:
  struct Setup {
    PatchGrid grid;
    text::ChatFormat chat;
    const char* model;  // for messages: "Qwen2.5-VL"
    extract::TokenBudget budget;
    // config.json's vision token ids (-1 where it has none), checked against the tokenizer's.
    int64_t image_token_id = -1, vision_start_token_id = -1, vision_end_token_id = -1;
  };
  // Throws docsift::FileError for missing or mismatched files, docsift::ConfigError for a
  // vision.max_pixels below the smallest image.
  PatchFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options, Setup setup);

  int32_t image_token_id() const { return image_token_id_; }  // the tokenizer's
  const ImageConfig& image_config() const { return image_; }
  // vision.resample: the config's choice, or `automatic` when it says auto.
  void choose_resample(image::Resample configured, image::Resample automatic);
  // The plan's terms; `parameters_from_config` stands in for the shards' count when the folder
  // has no weights.
  void set_memory_shape(const memory::ModelShape& shape) { shape_ = shape; }
  static std::uint64_t parameters(const model::Checkpoint& checkpoint,
                                  std::uint64_t parameters_from_config);

 private:
  PatchGrid grid_;
  extract::TokenBudget budget_;
  ImageConfig image_;
  text::ChatTemplate chat_;
  int32_t image_token_id_ = -1;
  image::Resample resample_ = image::Resample::Torch;
  memory::ModelShape shape_;
};

}  // namespace docsift::family
