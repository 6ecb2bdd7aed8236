#include "docsift/family/patch_family.h"

#include "docsift/family/patch_image.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/generation_config.h"
#include "docsift/model/inspect.h"

namespace docsift::family {

PatchFamily::PatchFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options,
                         Setup setup)
    : grid_(setup.grid),
      budget_(setup.budget),
      image_(read_image_config(checkpoint.dir(), setup.grid, setup.model)),
      chat_(std::move(setup.chat), text::Tokenizer::load(checkpoint.dir())) {
  image_token_id_ = check_vision_tokens(chat_, setup.image_token_id, setup.vision_start_token_id,
                                        setup.vision_end_token_id, checkpoint.dir().string());
  if (const auto generation = model::read_generation_config(checkpoint.dir())) {
    chat_.add_stop_ids(generation->eos_token_ids,
                       (checkpoint.dir() / "generation_config.json").string());
  }
  // vision.max_pixels lowers the processor's budget (a smaller card; the plan reads it too).
  lower_max_pixels(image_, options.max_pixels, grid_);
}

ImageInputs PatchFamily::preprocess(const at::Tensor& rgb_hwc, int /*max_tiles*/) const {
  return patch_inputs(preprocess_patches(rgb_hwc, grid_, image_, resample_), grid_);
}

int PatchFamily::plan_prompt_units(int /*tiles*/) const {
  return static_cast<int>(max_merged_patches(image_, grid_));
}

int PatchFamily::auto_max_new_tokens(const extract::FieldSchema& schema) const {
  return extract::auto_max_new_tokens(schema, budget_);
}

void PatchFamily::choose_resample(image::Resample configured, image::Resample automatic) {
  resample_ = configured != image::Resample::Auto ? configured : automatic;
}

std::uint64_t PatchFamily::parameters(const model::Checkpoint& checkpoint,
                                      std::uint64_t parameters_from_config) {
  return checkpoint.has_weights() ? model::summarize(checkpoint).total.parameters
                                  : parameters_from_config;
}

}  // namespace docsift::family
