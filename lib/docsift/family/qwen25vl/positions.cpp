#include "docsift/family/qwen25vl/positions.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/pow.h>

#include <algorithm>

namespace docsift::family::qwen25vl {

Windows window_order(const VisionConfig& vision, int64_t grid_h, int64_t grid_w) {
  const int64_t m = vision.merge_size, ws = vision.window_merged(), unit = m * m;
  const int64_t rows = grid_h / m, cols = grid_w / m;
  // As the reference pads the merged grid up to whole windows (a whole extra window row or column
  // when it already divides: those windows are empty and dropped).
  const int64_t windows_h = (rows + ws - rows % ws) / ws, windows_w = (cols + ws - cols % ws) / ws;
  std::vector<int64_t> index;
  index.reserve(static_cast<std::size_t>(rows * cols));
  Windows out;
  out.bounds.push_back(0);
  for (int64_t wh = 0; wh < windows_h; ++wh) {
    for (int64_t ww = 0; ww < windows_w; ++ww) {
      const std::size_t before = index.size();
      for (int64_t r = wh * ws; r < std::min(rows, (wh + 1) * ws); ++r) {
        for (int64_t c = ww * ws; c < std::min(cols, (ww + 1) * ws); ++c)
          index.push_back(r * cols + c);
      }
      if (index.size() > before) out.bounds.push_back(static_cast<int64_t>(index.size()) * unit);
    }
  }
  out.index = at::from_blob(index.data(), {static_cast<int64_t>(index.size())}, at::kLong).clone();
  return out;
}

model::RopeTables vision_rope(const VisionConfig& vision, int64_t grid_h, int64_t grid_w,
                              at::Device device) {
  const int64_t m = vision.merge_size, quarter = vision.head_dim() / 4;
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  // (row, column) of each patch in merge-block order: blocks row-major, then m × m inside each.
  const at::Tensor r = at::arange(grid_h, opts.dtype(at::kLong))
                           .view({grid_h / m, m, 1, 1})
                           .expand({grid_h / m, m, grid_w / m, m});
  const at::Tensor c = at::arange(grid_w, opts.dtype(at::kLong))
                           .view({1, 1, grid_w / m, m})
                           .expand({grid_h / m, m, grid_w / m, m});
  const at::Tensor rows = r.permute({0, 2, 1, 3}).reshape({-1}).to(at::kFloat);
  const at::Tensor cols = c.permute({0, 2, 1, 3}).reshape({-1}).to(at::kFloat);
  // inv_freq = 1 / theta^(arange(0, hd/2, 2) / (hd/2)) in float32, as the reference: hd/4
  // frequencies.
  const at::Tensor exponent =
      at::arange(0, 2 * quarter, 2, opts).div(static_cast<double>(2 * quarter));
  const at::Tensor inv_freq = at::pow(vision.rope_theta, exponent).reciprocal();
  const at::Tensor half =
      at::cat({rows.unsqueeze(1).mul(inv_freq), cols.unsqueeze(1).mul(inv_freq)}, 1);  // [N, hd/2]
  const at::Tensor emb = at::cat({half, half}, 1);                                     // [N, hd]
  return {emb.cos(), emb.sin()};
}

}  // namespace docsift::family::qwen25vl
