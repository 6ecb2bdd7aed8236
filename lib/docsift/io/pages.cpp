#include "docsift/io/pages.h"

#include <ATen/ops/from_blob.h>

#include <cstdint>
#include <memory>
#include <opencv2/core/mat.hpp>

#include "docsift/error.h"
#include "docsift/io/pdf.h"
#include "docsift/io/pinned_file.h"

namespace docsift::io {
namespace fs = std::filesystem;

at::Tensor read_rgb_image(const fs::path& path, const ImageLimits& limits, int page, std::string* decoder_said,
                          const fs::path& named_as) {
  // The matrix's buffer becomes the tensor's storage, released with it (to_rgb8 always returns a
  // continuous matrix of its own).
  auto pixels = std::make_unique<cv::Mat>(read_rgb_pixels(path, limits, page, decoder_said, named_as));
  const std::int64_t h = pixels->rows, w = pixels->cols;
  std::uint8_t* data = pixels->data;
  return at::from_blob(
      data, {h, w, 3}, [owner = pixels.release()](void*) { delete owner; }, at::TensorOptions().dtype(at::kByte));
}

namespace {

// f(the name to read through) with the file pinned (pinned_file.h): a FileError's message, and what
// a decoder said, name the file by its path, not by /proc/self/fd.
template <class F>
auto through_pin(const fs::path& path, const fs::path& expected_real, std::string* said, F f) {
  const PinnedFile pin(path, expected_real);
  try {
    auto out = f(pin.open_path());
    if (said != nullptr) *said = pin.named(*said);
    return out;
  } catch (const FileError& e) {
    throw FileError(pin.named(e.what()));
  }
}

}  // namespace

int page_count(const fs::path& path, const PageOptions& options, const fs::path& expected_real) {
  const int pages = through_pin(path, expected_real, nullptr, [](const fs::path& p) {
    return is_pdf(p) ? pdf_page_count(p) : image_page_count(p);
  });
  if (pages > options.max_pages) {
    throw FileError(path.string() + ": " + std::to_string(pages) + " pages, over input.max_pages (" +
                    std::to_string(options.max_pages) + "); split the file or raise the limit");
  }
  return pages;
}

at::Tensor read_page(const fs::path& path, int page, const PageOptions& options, std::string* decoder_said,
                     const fs::path& expected_real) {
  return through_pin(path, expected_real, decoder_said, [&](const fs::path& p) {
    if (is_pdf(p)) {
      check_file_size(p, options.limits);
      // The rendered bytes become the tensor's storage, freed with it: no copy of the page.
      auto pixels = std::make_unique<PdfPixels>(render_pdf_page(p, page, options.pdf_dpi, options.limits, decoder_said));
      std::uint8_t* data = pixels->rgb.data();
      const std::int64_t h = pixels->height, w = pixels->width;
      return at::from_blob(
          data, {h, w, 3}, [owner = pixels.release()](void*) { delete owner; }, at::TensorOptions().dtype(at::kByte));
    }
    return read_rgb_image(p, options.limits, page, decoder_said, path);
  });
}

}  // namespace docsift::io
