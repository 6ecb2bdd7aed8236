#include "docsift/model/mrope.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/pow.h>

#include <algorithm>
#include <string>

#include "docsift/error.h"

namespace docsift::model {

std::vector<int64_t> mrope_axes(const std::vector<int64_t>& section, MropeLayout layout) {
  std::vector<int64_t> axes;
  if (section.size() != 3) return axes;
  const int64_t half = section[0] + section[1] + section[2];
  axes.reserve(static_cast<std::size_t>(std::max<int64_t>(half, 0)));
  for (int64_t i = 0; i < half; ++i) {
    if (layout == MropeLayout::kContiguous) {
      axes.push_back(i < section[0] ? 0 : i < section[0] + section[1] ? 1 : 2);
    } else if (i % 3 == 1 && i < 3 * section[1]) {
      axes.push_back(1);
    } else if (i % 3 == 2 && i < 3 * section[2]) {
      axes.push_back(2);
    } else {
      axes.push_back(0);
    }
  }
  return axes;
}

MropePositions mrope_positions(const std::vector<int32_t>& ids, int32_t image_token, int64_t rows,
                               int64_t columns) {
  const int64_t t_len = static_cast<int64_t>(ids.size());
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
    if (seen || run != rows * columns) {
      throw Error("the prompt's image tokens (" +
                  std::string(seen ? "a second run" : std::to_string(run)) +
                  ") do not match one image of " + std::to_string(rows) + " × " +
                  std::to_string(columns) + " merged patches");
    }
    seen = true;
    for (int64_t k = 0; k < run; ++k) {
      const auto at = static_cast<std::size_t>(i + k);
      pos[at] = current;                                                  // time: one frame
      pos[static_cast<std::size_t>(t_len) + at] = current + k / columns;  // row
      pos[static_cast<std::size_t>(2 * t_len) + at] = current + k % columns;
    }
    highest = std::max(highest, current + std::max(rows, columns) - 1);
    current += std::max(rows, columns);
    i += run;
  }
  MropePositions out;
  out.ids = at::from_blob(pos.data(), {3, t_len}, at::kLong).clone();
  out.delta = highest + 1 - t_len;
  return out;
}

RopeTables mrope_tables(const RopeConfig& rope, const at::Tensor& positions, MropeLayout layout,
                        at::ScalarType dtype, at::Device device) {
  std::vector<int64_t> axes = mrope_axes(rope.mrope_section, layout);
  const auto half = static_cast<int64_t>(axes.size());
  if (half == 0 || half != rope.head_dim / 2)
    throw Error("multimodal RoPE: mrope_section must be 3 sizes covering head_dim / 2");
  const at::Tensor inv = rope_inv_freq(rope, positions.size(1), device);             // [hd/2]
  const at::Tensor freqs = positions.to(device, at::kFloat).unsqueeze(-1).mul(inv);  // [3, T, hd/2]
  // Each frequency's value from its axis: [1, T, hd/2] picked from the three, values copied.
  const at::Tensor axis = at::from_blob(axes.data(), {1, 1, half}, at::kLong)
                              .to(device)
                              .expand({1, freqs.size(1), half});
  const at::Tensor picked = freqs.gather(0, axis).squeeze(0);  // [T, hd/2]
  const at::Tensor emb = at::cat({picked, picked}, -1);        // [T, hd]
  return {emb.cos().to(dtype).unsqueeze(1), emb.sin().to(dtype).unsqueeze(1)};
}

RopeTables patch_rope(int64_t head_dim, int64_t merge, double theta, int64_t grid_h, int64_t grid_w,
                      at::Device device) {
  const int64_t m = merge, quarter = head_dim / 4;
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
  const at::Tensor inv_freq = at::pow(theta, exponent).reciprocal();
  const at::Tensor half =
      at::cat({rows.unsqueeze(1).mul(inv_freq), cols.unsqueeze(1).mul(inv_freq)}, 1);  // [N, hd/2]
  const at::Tensor emb = at::cat({half, half}, 1);                                     // [N, hd]
  return {emb.cos(), emb.sin()};
}

}  // namespace docsift::model
