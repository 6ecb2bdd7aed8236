#include "docsift/family/qwen25vl/positions.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/pow.h>

#include <algorithm>
#include <string>

#include "docsift/error.h"

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
        for (int64_t c = ww * ws; c < std::min(cols, (ww + 1) * ws); ++c) index.push_back(r * cols + c);
      }
      if (index.size() > before) out.bounds.push_back(static_cast<int64_t>(index.size()) * unit);
    }
  }
  out.index = at::from_blob(index.data(), {static_cast<int64_t>(index.size())}, at::kLong).clone();
  return out;
}

model::RopeTables vision_rope(const VisionConfig& vision, int64_t grid_h, int64_t grid_w, at::Device device) {
  const int64_t m = vision.merge_size, quarter = vision.head_dim() / 4;
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  // (row, column) of each patch in merge-block order: blocks row-major, then m × m inside each.
  const at::Tensor r = at::arange(grid_h, opts.dtype(at::kLong)).view({grid_h / m, m, 1, 1}).expand({grid_h / m, m, grid_w / m, m});
  const at::Tensor c = at::arange(grid_w, opts.dtype(at::kLong)).view({1, 1, grid_w / m, m}).expand({grid_h / m, m, grid_w / m, m});
  const at::Tensor rows = r.permute({0, 2, 1, 3}).reshape({-1}).to(at::kFloat);
  const at::Tensor cols = c.permute({0, 2, 1, 3}).reshape({-1}).to(at::kFloat);
  // inv_freq = 1 / theta^(arange(0, hd/2, 2) / (hd/2)) in float32, as the reference: hd/4
  // frequencies.
  const at::Tensor exponent = at::arange(0, 2 * quarter, 2, opts).div(static_cast<double>(2 * quarter));
  const at::Tensor inv_freq = at::pow(vision.rope_theta, exponent).reciprocal();
  const at::Tensor half = at::cat({rows.unsqueeze(1).mul(inv_freq), cols.unsqueeze(1).mul(inv_freq)}, 1);  // [N, hd/2]
  const at::Tensor emb = at::cat({half, half}, 1);                                                        // [N, hd]
  return {emb.cos(), emb.sin()};
}

PromptPositions prompt_positions(const std::vector<int32_t>& ids, int32_t image_token, int64_t merge_size,
                                 int64_t grid_h, int64_t grid_w) {
  const int64_t t_len = static_cast<int64_t>(ids.size());
  const int64_t rows = grid_h / merge_size, cols = grid_w / merge_size;
  std::vector<int64_t> pos(static_cast<std::size_t>(3 * t_len));
  int64_t current = 0, highest = -1;
  bool seen = false;
  for (int64_t i = 0; i < t_len;) {
    if (ids[static_cast<std::size_t>(i)] != image_token) {
      for (int a = 0; a < 3; ++a) pos[static_cast<std::size_t>(a * t_len + i)] = current;
      highest = std::max(highest, current);
      ++current, ++i;
      continue;
    }
    int64_t run = 0;
    while (i + run < t_len && ids[static_cast<std::size_t>(i + run)] == image_token) ++run;
    if (seen || run != rows * cols) {
      throw Error("the prompt's image tokens (" + std::string(seen ? "a second run" : std::to_string(run)) +
                  ") do not match one image of " + std::to_string(rows) + " × " + std::to_string(cols) +
                  " merged patches");
    }
    seen = true;
    for (int64_t k = 0; k < run; ++k) {
      const auto at = static_cast<std::size_t>(i + k);
      pos[at] = current;                                              // time: one frame
      pos[static_cast<std::size_t>(t_len) + at] = current + k / cols;  // row
      pos[static_cast<std::size_t>(2 * t_len) + at] = current + k % cols;
    }
    highest = std::max(highest, current + std::max(rows, cols) - 1);
    current += std::max(rows, cols);
    i += run;
  }
  PromptPositions out;
  out.ids = at::from_blob(pos.data(), {3, t_len}, at::kLong).clone();
  out.delta = highest + 1 - t_len;
  return out;
}

model::RopeTables mrope_tables(const model::RopeConfig& rope, const at::Tensor& positions, at::ScalarType dtype,
                               at::Device device) {
  const at::Tensor inv = model::rope_inv_freq(rope, positions.size(1), device);                   // [hd/2]
  const at::Tensor freqs = positions.to(device, at::kFloat).unsqueeze(-1).mul(inv);               // [3, T, hd/2]
  std::vector<at::Tensor> parts;
  int64_t from = 0;
  for (std::size_t axis = 0; axis < rope.mrope_section.size(); ++axis) {
    parts.push_back(freqs[static_cast<int64_t>(axis)].narrow(-1, from, rope.mrope_section[axis]));
    from += rope.mrope_section[axis];
  }
  const at::Tensor half = at::cat(parts, -1);            // [T, hd/2]
  const at::Tensor emb = at::cat({half, half}, -1);      // [T, hd]
  return {emb.cos().to(dtype).unsqueeze(1), emb.sin().to(dtype).unsqueeze(1)};
}

}  // namespace docsift::family::qwen25vl
