#include "docsift/family/mllama/tiles.h"

#include <ATen/ops/_upsample_bilinear2d_aa.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "docsift/error.h"

namespace docsift::family::mllama {
namespace {

// CLIP's normalisation (preprocessor_config.json of the released models).
constexpr float kMean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
constexpr float kStd[3] = {0.26862954f, 0.26130258f, 0.27577711f};

}  // namespace

MllamaCanvas mllama_canvas(int width, int height, int max_tiles, int tile_size,
                           const AspectRatios& supported) {
  if (width < 1 || height < 1 || tile_size < 1)
    throw Error("mllama_canvas: sizes must be positive");
  // Every arrangement's scale is the one that fits the image inside its canvas. Prefer the
  // smallest upscale (≥ 1); if every canvas is smaller, the largest downscale; among equal scales,
  // the smallest canvas. The arrangements are (rows, columns).
  struct Candidate {
    int rows, columns;
    double scale;
  };
  std::vector<Candidate> candidates;
  for (const auto& [rows, columns] : supported) {
    if (rows * columns > max_tiles) continue;
    const double scale_h = static_cast<double>(rows * tile_size) / height;
    const double scale_w = static_cast<double>(columns * tile_size) / width;
    candidates.push_back({rows, columns, scale_w > scale_h ? scale_h : scale_w});
  }
  if (candidates.empty()) {
    throw Error("no tile arrangement of at most " + std::to_string(max_tiles) +
                " tiles is supported by the model");
  }
  double selected = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) {
    if (c.scale >= 1.0) selected = std::min(selected, c.scale);
  }
  if (std::isinf(selected)) {
    selected = -1.0;
    for (const Candidate& c : candidates) selected = std::max(selected, c.scale);
  }
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (c.scale == selected && (best == nullptr || c.rows * c.columns < best->rows * best->columns))
      best = &c;
  }
  MllamaCanvas canvas;
  canvas.rows = best->rows;
  canvas.columns = best->columns;
  // Fit: the target is the image size clipped to [tile, canvas] per side; scale by the smaller
  // ratio so the aspect ratio holds (floor, at least 1 pixel).
  const int canvas_h = canvas.rows * tile_size, canvas_w = canvas.columns * tile_size;
  const int target_w = std::clamp(width, tile_size, canvas_w),
            target_h = std::clamp(height, tile_size, canvas_h);
  const double scale_h = static_cast<double>(target_h) / height,
               scale_w = static_cast<double>(target_w) / width;
  if (scale_w < scale_h) {
    canvas.resized_width = target_w;
    canvas.resized_height =
        std::min(std::max(static_cast<int>(std::floor(height * scale_w)), 1), target_h);
  } else {
    canvas.resized_height = target_h;
    canvas.resized_width =
        std::min(std::max(static_cast<int>(std::floor(width * scale_h)), 1), target_w);
  }
  const auto found =
      std::find(supported.begin(), supported.end(), std::make_pair(canvas.rows, canvas.columns));
  canvas.aspect_ratio_id = 1 + (found - supported.begin());
  return canvas;
}

MllamaImage preprocess_mllama(const at::Tensor& rgb_hwc, int max_tiles, int tile_size,
                              int max_num_tiles, const AspectRatios& supported) {
  if (rgb_hwc.dim() != 3 || rgb_hwc.size(2) != 3 || rgb_hwc.scalar_type() != at::kByte) {
    throw Error("preprocess_mllama expects an [H, W, 3] uint8 RGB image");
  }
  if (max_tiles < 1)
    throw Error("model.max_tiles must be at least 1 (got " + std::to_string(max_tiles) + ")");
  MllamaImage out;
  const int limit = std::min(max_tiles, max_num_tiles);
  out.canvas = mllama_canvas(static_cast<int>(rgb_hwc.size(1)), static_cast<int>(rgb_hwc.size(0)),
                             limit, tile_size, supported);
  const MllamaCanvas& c = out.canvas;
  const at::Tensor chw = rgb_hwc.permute({2, 0, 1});
  out.resized_u8 =
      chw.size(1) == c.resized_height && chw.size(2) == c.resized_width
          ? chw.contiguous()  // torchvision returns an image of the right size as is
          : at::_upsample_bilinear2d_aa(chw.unsqueeze(0), {c.resized_height, c.resized_width},
                                        /*align_corners=*/false)
                .squeeze(0);
  // Pad with 0 (black) before normalising, so the padding inside used tiles becomes −mean/std.
  const at::Tensor padded = at::constant_pad_nd(
      out.resized_u8,
      {0, c.columns * tile_size - c.resized_width, 0, c.rows * tile_size - c.resized_height}, 0);
  const at::Tensor mean = at::tensor(std::vector<float>(kMean, kMean + 3)).view({3, 1, 1});
  const at::Tensor stdev = at::tensor(std::vector<float>(kStd, kStd + 3)).view({3, 1, 1});
  const at::Tensor normalised =
      padded.to(at::kFloat).div(255.0).sub(mean).div(stdev);  // [3, rows·S, cols·S]
  // [3, rows, S, cols, S] → [rows, cols, 3, S, S] → tiles row-major; the other slots stay zero.
  const at::Tensor tiles = normalised.view({3, c.rows, tile_size, c.columns, tile_size})
                               .permute({1, 3, 0, 2, 4})
                               .reshape({c.tiles(), 3, tile_size, tile_size});
  out.pixel_values = at::zeros({max_num_tiles, 3, tile_size, tile_size}, at::kFloat);
  out.pixel_values.slice(0, 0, c.tiles()).copy_(tiles);
  return out;
}

}  // namespace docsift::family::mllama
