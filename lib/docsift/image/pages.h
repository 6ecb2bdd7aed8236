// Pages as the models take them: io's pixels (io/pages.h, no LibTorch) wrapped as [H, W, 3] uint8
// tensors without a copy, the matrix's buffer becoming the tensor's storage.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <string>

#include "docsift/io/image_file.h"
#include "docsift/io/pages.h"

namespace docsift::image {

// `rgb` (continuous CV_8UC3) as an [H, W, 3] uint8 tensor that owns it.
at::Tensor to_tensor(cv::Mat rgb);

// An image file's page `page` (io::read_rgb_pixels) as a tensor.
at::Tensor read_rgb_image(const std::filesystem::path& path, const io::ImageLimits& limits = {},
                          int page = 0, std::string* decoder_said = nullptr,
                          const std::filesystem::path& named_as = {});

// A file's page `page` (io::read_page_pixels: an image's, or a PDF's rendered) as a tensor.
at::Tensor read_page(const std::filesystem::path& path, int page, const io::PageOptions& options,
                     std::string* decoder_said = nullptr,
                     const std::filesystem::path& expected_real = {});

}  // namespace docsift::image
