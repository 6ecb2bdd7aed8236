// The patch image processor the Qwen vision-language families share (transformers'
// Qwen2VLImageProcessor, which both Qwen2.5-VL and Qwen3-VL checkpoints name): its settings file
// read into a pixel budget and a normalisation. No LibTorch: `inspect` plans from it without
// weights, and the fuzz build instruments it (tests/fuzz/fuzz_model_config.cpp). The pixels
// themselves are patch_image.h's.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace docsift::family {

// How the vision tower cuts an image: square patches of patch_size px, merged merge_size ×
// merge_size into one token, each frame repeated temporal_patch_size times (images are videos of
// one frame).
struct PatchGrid {
  int64_t patch_size = 14, merge_size = 2, temporal_patch_size = 2;
  int64_t factor() const { return patch_size * merge_size; }  // the side of a merged patch, px
  int64_t patch_values() const { return 3 * temporal_patch_size * patch_size * patch_size; }
};

// What the image processor's file says (preprocessor_config.json, or processor_config.json's
// "image_processor" in transformers 5's layout): the pixel budget and the normalisation.
struct ImageConfig {
  int64_t min_pixels = 56 * 56, max_pixels = 28 * 28 * 1280;
  std::array<double, 3> mean{0.48145466, 0.4578275, 0.40821073};  // CLIP's, the processor's default
  std::array<double, 3> std{0.26862954, 0.26130258, 0.27577711};
  double rescale = 1.0 / 255.0;
  bool torchvision = false;  // the file names the fast (torchvision) processor
  bool pil = false;          // the file names transformers 5's Pillow processor (…Pil)
};

// Reads the image processor's settings from the file's JSON (either file's shape); throws
// docsift::FileError naming the key for a bad value. The file's patch, merge and temporal sizes
// must be the model's.
ImageConfig parse_image_config(const nlohmann::json& processor, const std::string& label,
                               const PatchGrid& grid);

// The settings file in a checkpoint folder: the release's preprocessor_config.json, or the
// processor_config.json transformers 5 writes. `model` names the family in the error for a folder
// with neither.
ImageConfig read_image_config(const std::filesystem::path& dir, const PatchGrid& grid,
                              const std::string& model);

// vision.max_pixels: lowers `image`'s max_pixels (never raises it; nullopt leaves it). Throws
// docsift::ConfigError below the smallest image the model takes (min_pixels, or one merged patch).
void lower_max_pixels(ImageConfig& image, std::optional<int64_t> max_pixels, const PatchGrid& grid);

// The merged patches (one image token each) of the largest image the budget allows: the memory
// plan's prompt length.
int64_t max_merged_patches(const ImageConfig& image, const PatchGrid& grid);

}  // namespace docsift::family
