// Pillow's bicubic resize, reproduced exactly: the same kernel (a = −0.5, support 2, widened by
// the scale when shrinking), the same coefficient bounds, 22-bit fixed-point weights rounded half
// away from zero, a horizontal pass (over only the rows the vertical pass reads) rounded to 8 bits,
// then the vertical pass. InternVL3's original-layout code (`chat()`) resizes PIL images so; the
// -hf processor resizes tensors with torchvision, which differs by a few grey levels (family
// internvl picks by layout, `vision.resample`).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace docsift::image {

// `rgb_hwc`: [H, W, C] uint8 (any strides). Returns a contiguous [height, width, C] uint8 tensor,
// byte for byte what Pillow's Image.resize((width, height), Image.BICUBIC) gives.
at::Tensor pil_resize_bicubic(const at::Tensor& rgb_hwc, int64_t height, int64_t width);

}  // namespace docsift::image
