#include "docsift/family/qwen25vl/positions.h"

#include <ATen/ops/from_blob.h>

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

}  // namespace docsift::family::qwen25vl
