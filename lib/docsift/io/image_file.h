// Reading an image file into an RGB tensor. (The batch decoder of `docsift run` will add EXIF
// orientation, 16-bit and CMYK handling and a pixel limit read from the header; until then
// OpenCV's own limit of 2^30 pixels applies.)
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>

namespace docsift::io {

// [H, W, 3] uint8 RGB tensor owning the pixels. Throws docsift::FileError naming the file when it
// is missing or not an image OpenCV can decode.
at::Tensor read_rgb_image(const std::filesystem::path& path);

}  // namespace docsift::io
