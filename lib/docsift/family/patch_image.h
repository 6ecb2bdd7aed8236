// The Qwen families' image preprocessing, as Qwen2VLImageProcessor does it (docs/models.md,
// "Qwen2.5-VL" and "Qwen3-VL"): smart_resize to multiples of patch × merge (28 px for Qwen2.5-VL,
// 32 px for Qwen3-VL) with the pixel count between min_pixels and max_pixels, a bicubic resize
// (Pillow's, or torchvision's tensor path: image/), rescale and CLIP normalisation, the frame
// repeated to temporal_patch_size, and the patches flattened in the processor's order: merge blocks
// row-major, the merge² patches of a block row-major, each patch's values as (channel, frame, y,
// x), the order the 3-D patch embedding's weight reads.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "docsift/family/family.h"
#include "docsift/family/patch_processor.h"
#include "docsift/image/resample.h"

namespace docsift::family {

struct ResizedSize {
  int64_t height = 0, width = 0;
};

// The processor's smart_resize: each side rounded (half to even) to a multiple of `factor`, then
// scaled down (floor) when the area passes max_pixels or up (ceil) when it falls below
// min_pixels, keeping the aspect ratio. Throws docsift::Error for an aspect ratio above 200.
ResizedSize smart_resize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                         int64_t max_pixels);

struct PatchImage {
  at::Tensor resized;              // [H, W, 3] uint8 after the resize
  at::Tensor pixel_values;         // [grid_h · grid_w, 3 · temporal · patch²] float32
  int64_t grid_h = 0, grid_w = 0;  // in patches
};

// `rgb_hwc` [H, W, 3] uint8 (any strides). `resample` Pil or Torch. Throws docsift::Error for other
// shapes or types.
PatchImage preprocess_patches(const at::Tensor& rgb_hwc, const PatchGrid& grid,
                              const ImageConfig& image, image::Resample resample);

// The family interface's inputs for one preprocessed image: one "tile", the patch grid as rows
// and columns, one prompt unit (image token) per merged patch.
ImageInputs patch_inputs(const PatchImage& image, const PatchGrid& grid);

// The tokenizer's ids of the vision tokens checked against config.json's (image_token_id,
// vision_start_token_id, vision_end_token_id; -1 where it has none): the image token's id. Throws
// docsift::FileError naming `dir` when they differ (files of two checkpoints).
int32_t check_vision_tokens(const text::ChatTemplate& chat, int64_t image_id, int64_t start_id,
                            int64_t end_id, const std::string& dir);

}  // namespace docsift::family
