// Qwen2.5-VL's vision tower positions, as transformers 5.23 computes them (docs/models.md,
// "Qwen2.5-VL"):
//   - the vision tower's 2-D rotary angles per patch, (row, column), in merge-block order;
//   - its windows: merged patches regrouped window by window, and where each window ends.
// The language model's 3-D position ids and their RoPE tables are the shared multimodal RoPE
// block's (model/mrope.h), over the merged grid, contiguous sections.
// Shapes: N patches (gh · gw), M = N / merge² merged patches, hd head dim.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "docsift/family/qwen25vl/config.h"
#include "docsift/model/blocks.h"

namespace docsift::family::qwen25vl {

// Merged patches in window order: `index` [M] int64 lists merged patch ids (row-major over the
// gh/merge × gw/merge grid) window by window (windows row-major, patches row-major within one);
// `bounds` are the patch offsets (×merge²) where windows end, starting with 0, empty windows
// dropped.
struct Windows {
  at::Tensor index;
  std::vector<int64_t> bounds;
};
Windows window_order(const VisionConfig& vision, int64_t grid_h, int64_t grid_w);

// The vision tower's rotary tables, cos and sin [N, hd] float32, patch rows in merge-block order
// (the processor's): row angles in the first hd/4 frequencies, column angles in the next, twice.
model::RopeTables vision_rope(const VisionConfig& vision, int64_t grid_h, int64_t grid_w,
                              at::Device device);

}  // namespace docsift::family::qwen25vl
