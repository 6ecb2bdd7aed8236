// Qwen2.5-VL's positions, as transformers 5.23 computes them (docs/models.md, "Qwen2.5-VL"):
//   - the vision tower's 2-D rotary angles per patch, (row, column), in merge-block order;
//   - its windows: merged patches regrouped window by window, and where each window ends;
//   - the language model's 3-D (time, row, column) position ids for a prompt with one image, and
//     the offset (rope delta) later tokens add to their cache position;
//   - the multimodal RoPE tables built from those ids.
// Shapes: N patches (gh · gw), M = N / merge² merged patches, T prompt tokens, hd head dim.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "docsift/family/qwen25vl/config.h"
#include "docsift/model/blocks.h"

namespace docsift::family::qwen25vl {

// Merged patches in window order: `index` [M] int64 lists merged patch ids (row-major over the
// gh/merge × gw/merge grid) window by window (windows row-major, patches row-major within one);
// `bounds` are the patch offsets (×merge²) where windows end, starting with 0, empty windows dropped.
struct Windows {
  at::Tensor index;
  std::vector<int64_t> bounds;
};
Windows window_order(const VisionConfig& vision, int64_t grid_h, int64_t grid_w);

// The vision tower's rotary tables, cos and sin [N, hd] float32, patch rows in merge-block order
// (the processor's): row angles in the first hd/4 frequencies, column angles in the next, twice.
model::RopeTables vision_rope(const VisionConfig& vision, int64_t grid_h, int64_t grid_w, at::Device device);

// 3-D position ids [3, T] int64 for `ids`, whose run of `image_token` tokens (if any) is the image
// of patch grid grid_h × grid_w: text positions count on by one; image tokens get
// (start, start + row, start + column) over the merged grid, and the text after resumes at
// start + max(merged rows, merged columns). `delta` is max + 1 − T: a token fed later at cache
// position p has position p + delta on every axis. Throws docsift::Error when the run's length is
// not the merged grid's size or there are two runs.
struct PromptPositions {
  at::Tensor ids;  // [3, T]
  int64_t delta = 0;
};
PromptPositions prompt_positions(const std::vector<int32_t>& ids, int32_t image_token, int64_t merge_size,
                                 int64_t grid_h, int64_t grid_w);

// Multimodal RoPE tables [T, 1, hd] in `dtype` for position ids [3, T]: frequency i of the first
// mrope_section[0] rotates by the time id, the next mrope_section[1] by the row id, the rest by the
// column id; float32 arithmetic, as the reference.
model::RopeTables mrope_tables(const model::RopeConfig& rope, const at::Tensor& positions, at::ScalarType dtype,
                               at::Device device);

}  // namespace docsift::family::qwen25vl
