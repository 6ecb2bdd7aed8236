#include "docsift/family/internvl/tiles.h"

#include "docsift/image/pil_resize.h"
#include "docsift/image/torch_resize.h"

#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "docsift/error.h"

namespace docsift::family::internvl {

TileGrid choose_grid(int width, int height, int min_tiles, int max_tiles, int tile_size) {
  if (width < 1 || height < 1) {
    throw Error("image of " + std::to_string(width) + "×" + std::to_string(height) +
                " pixels has no area");
  }
  // Candidates (columns, rows), width-outer / height-inner, then stably ordered by area.
  std::vector<TileGrid> candidates;
  for (int area = 1; area <= max_tiles; ++area) {
    for (int columns = 1; columns <= max_tiles; ++columns) {
      for (int rows = 1; rows <= max_tiles; ++rows) {
        if (columns * rows == area && area >= min_tiles) candidates.push_back({columns, rows});
      }
    }
  }
  const double aspect = static_cast<double>(width) / height;
  const double image_area = static_cast<double>(width) * height;
  double best_diff = std::numeric_limits<double>::infinity();
  TileGrid best{1, 1};
  for (const TileGrid& grid : candidates) {
    const double diff = std::abs(aspect - static_cast<double>(grid.columns) / grid.rows);
    if (diff < best_diff) {
      best_diff = diff;
      best = grid;
    } else if (diff == best_diff &&
               image_area > 0.5 * tile_size * tile_size * grid.columns * grid.rows) {
      best = grid;
    }
  }
  return best;
}

InternVLImage preprocess_internvl(const at::Tensor& rgb_hwc, int max_tiles, int tile_size,
                                  image::Resample resample) {
  if (rgb_hwc.dim() != 3 || rgb_hwc.size(2) != 3 || rgb_hwc.scalar_type() != at::kByte) {
    throw Error("preprocess_internvl expects an [H, W, 3] uint8 RGB image");
  }
  if (max_tiles < 1)
    throw Error("model.max_tiles must be at least 1 (got " + std::to_string(max_tiles) + ")");
  const auto height = static_cast<int>(rgb_hwc.size(0));
  const auto width = static_cast<int>(rgb_hwc.size(1));
  InternVLImage result;
  result.grid = choose_grid(width, height, 1, max_tiles, tile_size);

  const at::Tensor chw = rgb_hwc.permute({2, 0, 1});  // a view: channels-last strides
  // [3, h, w] uint8, resized as the checkpoint's reference code does.
  const auto resize = [&](int64_t h, int64_t w) {
    return resample == image::Resample::Pil
               ? image::pil_resize_bicubic(rgb_hwc, h, w).permute({2, 0, 1})
               : image::torch_resize_bicubic(chw, h, w);
  };
  const at::Tensor canvas = resize(static_cast<int64_t>(tile_size) * result.grid.rows,
                                   static_cast<int64_t>(tile_size) * result.grid.columns);
  std::vector<at::Tensor> tiles;
  for (int k = 0; k < result.grid.tiles(); ++k) {
    const int64_t column = k % result.grid.columns, row = k / result.grid.columns;
    tiles.push_back(canvas.slice(1, row * tile_size, (row + 1) * tile_size)
                        .slice(2, column * tile_size, (column + 1) * tile_size));
  }
  if (tiles.size() > 1) tiles.push_back(resize(tile_size, tile_size));
  result.tiles_u8 = at::stack(tiles).contiguous();  // [N, 3, T, T]

  const at::Tensor mean = at::tensor({0.485f, 0.456f, 0.406f}).view({1, 3, 1, 1});
  const at::Tensor std = at::tensor({0.229f, 0.224f, 0.225f}).view({1, 3, 1, 1});
  result.pixel_values = result.tiles_u8.to(at::kFloat).div_(255.0f).sub_(mean).div_(std);
  return result;
}

}  // namespace docsift::family::internvl
