// torchvision's bicubic resize of uint8 images, exactly: for uint8 CPU input torchvision calls
// LibTorch's native `_upsample_bicubic2d_aa` (antialiased, fixed-point weights, the Pillow-SIMD
// algorithm), so calling it directly reproduces the transformers processors that resize tensors
// (InternVL3 -hf, Qwen2.5-VL's torchvision backend) byte for byte. Going through float32 instead
// differs by up to 13 levels at sharp text edges.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace docsift::image {

// `chw_u8` [C, H, W] uint8 on the CPU → [C, height, width] uint8; the input itself when the size
// is already right (torchvision returns it as is).
at::Tensor torch_resize_bicubic(const at::Tensor& chw_u8, int64_t height, int64_t width);

}  // namespace docsift::image
