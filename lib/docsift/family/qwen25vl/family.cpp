#include "docsift/family/qwen25vl/family.h"

#include <filesystem>

#include "docsift/error.h"
#include "docsift/family/qwen25vl/chat.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/family/qwen25vl/image.h"
#include "docsift/family/qwen25vl/model.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/generation_config.h"
#include "docsift/model/inspect.h"
#include "docsift/strict_json.h"

namespace docsift::family::qwen25vl {
namespace {

// The image processor's settings: the release's preprocessor_config.json, or the
// processor_config.json transformers 5 writes.
ImageConfig read_image_config(const std::filesystem::path& dir, const VisionConfig& vision) {
  for (const char* name : {"preprocessor_config.json", "processor_config.json"}) {
    const std::filesystem::path file = dir / name;
    if (std::filesystem::is_regular_file(file)) {
      return parse_image_config(read_json_file(file.string(), /*max_depth=*/8, 1u << 20),
                                file.string(), vision);
    }
  }
  throw FileError(
      dir.string() +
      ": has neither preprocessor_config.json nor processor_config.json; Qwen2.5-VL's pixel budget "
      "(min_pixels, max_pixels) comes from there: download it with the weights");
}

int32_t check_token(const text::ChatTemplate& chat, const char* token, int64_t config_id,
                    const std::string& dir) {
  const int32_t id = chat.token_id(token);
  if (config_id >= 0 && config_id != id) {
    throw FileError(dir + ": config.json's id for " + token + " is " + std::to_string(config_id) +
                    " but the tokenizer's is " + std::to_string(id) +
                    "; are the files from the same checkpoint?");
  }
  return id;
}

class Qwen25VLFamily final : public Family {
 public:
  Qwen25VLFamily(const model::Checkpoint& checkpoint, const FamilyOptions& options)
      : config_(parse_qwen25vl_config(checkpoint.config(),
                                      (checkpoint.dir() / "config.json").string())),
        image_(read_image_config(checkpoint.dir(), config_.vision)),
        chat_(chat_format(), text::Tokenizer::load(checkpoint.dir())) {
    const std::string dir = checkpoint.dir().string();
    config_.image_token_id = check_token(chat_, "<|image_pad|>", config_.image_token_id, dir);
    check_token(chat_, "<|vision_start|>", config_.vision_start_token_id, dir);
    check_token(chat_, "<|vision_end|>", config_.vision_end_token_id, dir);
    if (const auto generation = model::read_generation_config(checkpoint.dir())) {
      chat_.add_stop_ids(generation->eos_token_ids,
                         (checkpoint.dir() / "generation_config.json").string());
    }
    // vision.max_pixels lowers the processor's budget (a smaller card; the plan reads it too).
    if (options.max_pixels) {
      const int64_t floor =
          std::max(image_.min_pixels, config_.vision.factor() * config_.vision.factor());
      if (*options.max_pixels < floor) {
        throw ConfigError("vision.max_pixels " + std::to_string(*options.max_pixels) +
                          " is below this model's " + "smallest image (" + std::to_string(floor) +
                          " pixels: min_pixels or one 28 × 28 block)");
      }
      image_.max_pixels = std::min(image_.max_pixels, *options.max_pixels);
    }
    // auto: the release's processor (transformers 4.x, Qwen2VLImageProcessor) resized PIL images;
    // the processor transformers 5 writes and loads resizes tensors with torchvision.
    resample_ = options.resample != image::Resample::Auto ? options.resample
                : config_.layout == Qwen25VLConfig::Layout::kHub && !image_.torchvision
                    ? image::Resample::Pil
                    : image::Resample::Torch;
    shape_ = qwen25vl::memory_shape(config_, image_.max_pixels,
                                    checkpoint.has_weights()
                                        ? model::summarize(checkpoint).total.parameters
                                        : parameter_count(config_));
  }

  std::string_view name() const override { return "qwen2.5-vl"; }
  const text::ChatTemplate& chat() const override { return chat_; }
  // max_tiles does not apply: the image processor's pixel budget decides the size.
  ImageInputs preprocess(const at::Tensor& rgb_hwc, int /*max_tiles*/) const override {
    const Qwen25VLImage image = preprocess_qwen25vl(rgb_hwc, config_.vision, image_, resample_);
    ImageInputs in;
    in.pixel_values = image.pixel_values;
    in.tiles = 1;
    in.rows = static_cast<int>(image.grid_h);
    in.columns = static_cast<int>(image.grid_w);
    const int64_t unit = config_.vision.merge_size * config_.vision.merge_size;
    in.prompt_units = static_cast<int>(image.grid_h * image.grid_w / unit);
    return in;
  }
  int plan_tiles(int /*max_tiles*/) const override { return 1; }
  int plan_prompt_units(int /*tiles*/) const override {
    const int64_t factor = config_.vision.factor();
    return static_cast<int>(image_.max_pixels / (factor * factor));
  }
  int auto_max_new_tokens(const extract::FieldSchema& schema) const override {
    return extract::auto_max_new_tokens(schema, kTokenBudget);
  }
  const memory::ModelShape& memory_shape() const override { return shape_; }
  std::unique_ptr<Model> load(const model::Checkpoint& checkpoint, const model::Numerics& numerics,
                              at::Device device) const override {
    return std::make_unique<Qwen25VLModel>(checkpoint, config_, numerics, device);
  }

 private:
  Qwen25VLConfig config_;
  ImageConfig image_;
  text::ChatTemplate chat_;
  image::Resample resample_ = image::Resample::Pil;
  memory::ModelShape shape_;
};

}  // namespace

std::unique_ptr<Family> open_qwen25vl(const model::Checkpoint& checkpoint,
                                      const FamilyOptions& options) {
  return std::make_unique<Qwen25VLFamily>(checkpoint, options);
}

}  // namespace docsift::family::qwen25vl
