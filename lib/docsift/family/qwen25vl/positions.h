// Qwen2.5-VL's vision tower positions, as transformers 5.23 computes them (docs/models.md,
// "Qwen2.5-VL"):
//   - its windows: merged patches regrouped window by window, and where each window ends.
// The vision tower's 2-D rotary tables (model::patch_rope), the language model's 3-D position ids
// and their RoPE tables are the shared multimodal RoPE block's (model/mrope.h), over the merged
// grid, contiguous sections.
// Shapes: N patches (gh · gw), M = N / merge² merged patches, hd head dim.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "docsift/family/qwen25vl/config.h"

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

}  // namespace docsift::family::qwen25vl
