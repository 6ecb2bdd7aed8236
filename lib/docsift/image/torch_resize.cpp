#include "docsift/image/torch_resize.h"

#include <ATen/ops/_upsample_bicubic2d_aa.h>

namespace docsift::image {

at::Tensor torch_resize_bicubic(const at::Tensor& chw_u8, int64_t height, int64_t width) {
  if (chw_u8.size(1) == height && chw_u8.size(2) == width) return chw_u8;
  return at::_upsample_bicubic2d_aa(chw_u8.unsqueeze(0), {height, width}, /*align_corners=*/false)
      .squeeze(0);
}

}  // namespace docsift::image
