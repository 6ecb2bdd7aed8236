// Test images as LibTorch tensors.
#pragma once

#include <ATen/ops/from_blob.h>

#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace docsift::testing {

// [H, W, 3] uint8 RGB tensor owning a copy of the image file's pixels.
inline at::Tensor read_rgb(const std::filesystem::path& path) {
  cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
  if (bgr.empty()) throw std::runtime_error("cannot read " + path.string());
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return at::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, at::kByte).clone();
}

}  // namespace docsift::testing
