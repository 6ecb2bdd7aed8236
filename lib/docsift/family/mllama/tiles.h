// Llama 3.2 Vision image preprocessing, as MllamaImageProcessor does it (docs/models.md, Llama 3.2
// Vision, "Preprocessing"): choose a canvas of up to 4 tiles of S×S (S = 560 for the released
// models) by the scale that fits the image with the least resizing, resize keeping the aspect ratio
// (upscaling only an image smaller than a tile), pad bottom/right with black to the canvas,
// normalise with CLIP's mean and std, split into tiles row-major, and fill the remaining tile slots
// with zeros.
//
// Resize: transformers 5.23's processor resizes uint8 tensors with torchvision's antialiased
// bilinear, which on the CPU is LibTorch's native uint8 `_upsample_bilinear2d_aa` (the Pillow
// algorithm in fixed point); docsift calls the same kernel, so the resized image is the
// reference's byte for byte (tested).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "docsift/family/mllama/config.h"

namespace docsift::family::mllama {

struct MllamaCanvas {
  int rows = 1, columns = 1;                  // tiles down and across
  int resized_height = 0, resized_width = 0;  // the image inside the canvas (top-left)
  int64_t aspect_ratio_id = 0;                // 1 + index of (rows, columns) in the model's list
  int tiles() const { return rows * columns; }
};

// The canvas for a width×height image among the arrangements of `supported` with at most
// `max_tiles` tiles. Throws docsift::Error when none qualifies or the sizes are not positive.
MllamaCanvas mllama_canvas(int width, int height, int max_tiles, int tile_size,
                           const AspectRatios& supported);

struct MllamaImage {
  MllamaCanvas canvas;
  at::Tensor resized_u8;    // [3, h, w] uint8, before padding (for tests)
  at::Tensor pixel_values;  // [max_num_tiles, 3, S, S] float32; unused slots are zeros
};

// `rgb_hwc` [H, W, 3] uint8. `max_num_tiles` is the model's tile slots (4): every slot goes
// through the vision encoder, so the tensor always has that many.
MllamaImage preprocess_mllama(const at::Tensor& rgb_hwc, int max_tiles, int tile_size,
                              int max_num_tiles, const AspectRatios& supported);

}  // namespace docsift::family::mllama
