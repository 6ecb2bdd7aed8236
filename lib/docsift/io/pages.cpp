#include "docsift/io/pages.h"

#include <ATen/ops/from_blob.h>

#include <cstdint>
#include <memory>
#include <opencv2/core/mat.hpp>

#include "docsift/error.h"
#include "docsift/io/pdf.h"

namespace docsift::io {
namespace fs = std::filesystem;

at::Tensor read_rgb_image(const fs::path& path, const ImageLimits& limits, int page, std::string* decoder_said) {
  // The matrix's buffer becomes the tensor's storage, released with it (to_rgb8 always returns a
  // continuous matrix of its own).
  auto pixels = std::make_unique<cv::Mat>(read_rgb_pixels(path, limits, page, decoder_said));
  const std::int64_t h = pixels->rows, w = pixels->cols;
  std::uint8_t* data = pixels->data;
  return at::from_blob(
      data, {h, w, 3}, [owner = pixels.release()](void*) { delete owner; }, at::TensorOptions().dtype(at::kByte));
}

int page_count(const fs::path& path, const PageOptions& options) {
  const int pages = is_pdf(path) ? pdf_page_count(path) : image_page_count(path);
  if (pages > options.max_pages) {
    throw FileError(path.string() + ": " + std::to_string(pages) + " pages, over input.max_pages (" +
                    std::to_string(options.max_pages) + "); split the file or raise the limit");
  }
  return pages;
}

at::Tensor read_page(const fs::path& path, int page, const PageOptions& options, std::string* decoder_said) {
  if (is_pdf(path)) {
    check_file_size(path, options.limits);
    // The rendered bytes become the tensor's storage, freed with it: no copy of the page.
    auto pixels = std::make_unique<PdfPixels>(render_pdf_page(path, page, options.pdf_dpi, options.limits, decoder_said));
    std::uint8_t* data = pixels->rgb.data();
    const std::int64_t h = pixels->height, w = pixels->width;
    return at::from_blob(
        data, {h, w, 3}, [owner = pixels.release()](void*) { delete owner; }, at::TensorOptions().dtype(at::kByte));
  }
  return read_rgb_image(path, options.limits, page, decoder_said);
}

}  // namespace docsift::io
