#include "docsift/family/patch_image.h"

#include <ATen/ops/tensor.h>

#include <cmath>
#include <string>
#include <utility>

#include "docsift/error.h"
#include "docsift/image/pil_resize.h"
#include "docsift/image/torch_resize.h"

namespace docsift::family {

ResizedSize smart_resize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                         int64_t max_pixels) {
  if (height < 1 || width < 1) throw Error("an image needs at least one pixel each way");
  const double h = static_cast<double>(height), w = static_cast<double>(width),
               f = static_cast<double>(factor);
  if (std::max(h, w) / std::min(h, w) > 200) {
    throw Error("the image is " + std::to_string(width) + " × " + std::to_string(height) +
                " pixels: the model takes aspect ratios up to 200; crop it");
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

PatchImage preprocess_patches(const at::Tensor& rgb_hwc, const PatchGrid& grid,
                              const ImageConfig& image, image::Resample resample) {
  if (rgb_hwc.dim() != 3 || rgb_hwc.size(2) != 3 || rgb_hwc.scalar_type() != at::kByte) {
    throw Error("preprocess_patches expects an [H, W, 3] uint8 RGB image");
  }
  const ResizedSize size = smart_resize(rgb_hwc.size(0), rgb_hwc.size(1), grid.factor(),
                                        image.min_pixels, image.max_pixels);
  PatchImage out;
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
  const int64_t p = grid.patch_size, m = grid.merge_size, t = grid.temporal_patch_size;
  out.grid_h = size.height / p;
  out.grid_w = size.width / p;
  // [t, 3, H, W] (the one frame repeated) → [t, 3, gh/m, m, p, gw/m, m, p] → (gh/m, gw/m, m, m, 3,
  // t, p, p).
  const at::Tensor frames = chw.unsqueeze(0).expand({t, 3, size.height, size.width});
  out.pixel_values = frames.reshape({t, 3, out.grid_h / m, m, p, out.grid_w / m, m, p})
                         .permute({2, 5, 3, 6, 1, 0, 4, 7})
                         .reshape({out.grid_h * out.grid_w, grid.patch_values()})
                         .contiguous();
  return out;
}

ImageInputs patch_inputs(const PatchImage& image, const PatchGrid& grid) {
  ImageInputs in;
  in.pixel_values = image.pixel_values;
  in.tiles = 1;
  in.rows = static_cast<int>(image.grid_h);
  in.columns = static_cast<int>(image.grid_w);
  in.prompt_units =
      static_cast<int>(image.grid_h * image.grid_w / (grid.merge_size * grid.merge_size));
  return in;
}

int32_t check_vision_tokens(const text::ChatTemplate& chat, int64_t image_id, int64_t start_id,
                            int64_t end_id, const std::string& dir) {
  int32_t image = -1;
  for (const auto& [token, config_id] :
       {std::pair{"<|image_pad|>", image_id}, std::pair{"<|vision_start|>", start_id},
        std::pair{"<|vision_end|>", end_id}}) {
    const int32_t id = chat.token_id(token);
    if (config_id >= 0 && config_id != id) {
      throw FileError(dir + ": config.json's id for " + token + " is " + std::to_string(config_id) +
                      " but the tokenizer's is " + std::to_string(id) +
                      "; are the files from the same checkpoint?");
    }
    if (image < 0) image = id;
  }
  return image;
}

}  // namespace docsift::family
