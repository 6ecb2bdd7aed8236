#include "docsift/image/pages.h"

#include <ATen/ops/from_blob.h>

#include <cstdint>
#include <memory>

#include "docsift/error.h"

namespace docsift::image {

at::Tensor to_tensor(cv::Mat rgb) {
  if (rgb.type() != CV_8UC3 || !rgb.isContinuous())
    throw Error("to_tensor: expected a continuous 8-bit RGB matrix");
  auto owner = std::make_unique<cv::Mat>(std::move(rgb));
  const std::int64_t h = owner->rows, w = owner->cols;
  std::uint8_t* data = owner->data;
  return at::from_blob(
      data, {h, w, 3}, [held = owner.release()](void*) { delete held; },
      at::TensorOptions().dtype(at::kByte));
}

at::Tensor read_rgb_image(const std::filesystem::path& path, const io::ImageLimits& limits,
                          int page, std::string* decoder_said,
                          const std::filesystem::path& named_as) {
  return to_tensor(io::read_rgb_pixels(path, limits, page, decoder_said, named_as));
}

at::Tensor read_page(const std::filesystem::path& path, int page, const io::PageOptions& options,
                     std::string* decoder_said, const std::filesystem::path& expected_real) {
  return to_tensor(io::read_page_pixels(path, page, options, decoder_said, expected_real));
}

}  // namespace docsift::image
