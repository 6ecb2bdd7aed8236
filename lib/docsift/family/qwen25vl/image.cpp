#include "docsift/family/qwen25vl/image.h"

#include <ATen/ops/tensor.h>

#include <cmath>
#include <string>

#include "docsift/error.h"
#include "docsift/image/pil_resize.h"
#include "docsift/image/torch_resize.h"

namespace docsift::family::qwen25vl {

ResizedSize smart_resize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                         int64_t max_pixels) {
  if (height < 1 || width < 1) throw Error("an image needs at least one pixel each way");
  const double h = static_cast<double>(height), w = static_cast<double>(width),
               f = static_cast<double>(factor);
  if (std::max(h, w) / std::min(h, w) > 200) {
    throw Error("the image is " + std::to_string(width) + " × " + std::to_string(height) +
                " pixels: Qwen2.5-VL takes aspect ratios up to 200; crop it");
  }
  // Python's round() rounds half to even, as nearbyint does in the default rounding mode.
  auto h_bar = static_cast<int64_t>(std::nearbyint(h / f)) * factor;
  auto w_bar = static_cast<int64_t>(std::nearbyint(w / f)) * factor;
  if (h_bar * w_bar > max_pixels) {
    const double beta = std::sqrt(h * w / static_cast<double>(max_pixels));
    h_bar = std::max(factor, static_cast<int64_t>(std::floor(h / beta / f)) * factor);
    w_bar = std::max(factor, static_cast<int64_t>(std::floor(w / beta / f)) * factor);
  } else if (h_bar * w_bar < min_pixels) {
    const double beta = std::sqrt(static_cast<double>(min_pixels) / (h * w));
    h_bar = static_cast<int64_t>(std::ceil(h * beta / f)) * factor;
    w_bar = static_cast<int64_t>(std::ceil(w * beta / f)) * factor;
  }
  return {h_bar, w_bar};
}

Qwen25VLImage preprocess_qwen25vl(const at::Tensor& rgb_hwc, const VisionConfig& vision,
                                  const ImageConfig& image, image::Resample resample) {
  if (rgb_hwc.dim() != 3 || rgb_hwc.size(2) != 3 || rgb_hwc.scalar_type() != at::kByte) {
    throw Error("preprocess_qwen25vl expects an [H, W, 3] uint8 RGB image");
  }
  const ResizedSize size = smart_resize(rgb_hwc.size(0), rgb_hwc.size(1), vision.factor(),
                                        image.min_pixels, image.max_pixels);
  Qwen25VLImage out;
  out.resized = resample == image::Resample::Pil
                    ? image::pil_resize_bicubic(rgb_hwc, size.height, size.width)
                    : image::torch_resize_bicubic(rgb_hwc.permute({2, 0, 1}).contiguous(),
                                                  size.height, size.width)
                          .permute({1, 2, 0})
                          .contiguous();
  // (x · rescale − mean) / std per channel, float32: [3, H, W].
  const at::Tensor mean =
      at::tensor({image.mean[0], image.mean[1], image.mean[2]}, at::kFloat).view({3, 1, 1});
  const at::Tensor std =
      at::tensor({image.std[0], image.std[1], image.std[2]}, at::kFloat).view({3, 1, 1});
  const at::Tensor chw =
      out.resized.permute({2, 0, 1}).to(at::kFloat).mul(image.rescale).sub(mean).div(std);
  const int64_t p = vision.patch_size, m = vision.merge_size, t = vision.temporal_patch_size;
  out.grid_h = size.height / p;
  out.grid_w = size.width / p;
  // [t, 3, H, W] (the one frame repeated) → [t, 3, gh/m, m, p, gw/m, m, p] → (gh/m, gw/m, m, m, 3,
  // t, p, p).
  const at::Tensor frames = chw.unsqueeze(0).expand({t, 3, size.height, size.width});
  out.pixel_values = frames.reshape({t, 3, out.grid_h / m, m, p, out.grid_w / m, m, p})
                         .permute({2, 5, 3, 6, 1, 0, 4, 7})
                         .reshape({out.grid_h * out.grid_w, vision.patch_values()})
                         .contiguous();
  return out;
}

}  // namespace docsift::family::qwen25vl
