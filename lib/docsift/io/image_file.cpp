#include "docsift/io/image_file.h"

#include <ATen/ops/from_blob.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "docsift/error.h"

namespace docsift::io {

at::Tensor read_rgb_image(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) throw FileError(path.string() + ": no such image file");
  const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
  if (bgr.empty()) throw FileError(path.string() + ": not an image OpenCV can decode (jpg, png, tiff, webp, bmp)");
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return at::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, at::kByte).clone();
}

}  // namespace docsift::io
