#include "docsift/io/pages.h"

#include <cstdint>
#include <memory>
#include <opencv2/core/mat.hpp>

#include "docsift/error.h"
#include "docsift/io/pdf.h"
#include "docsift/io/pinned_file.h"

namespace docsift::io {
namespace fs = std::filesystem;

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
    throw FileError(path.string() + ": " + std::to_string(pages) +
                    " pages, over input.max_pages (" + std::to_string(options.max_pages) +
                    "); split the file or raise the limit");
  }
  return pages;
}

cv::Mat read_page_pixels(const fs::path& path, int page, const PageOptions& options,
                         std::string* decoder_said, const fs::path& expected_real) {
  return through_pin(path, expected_real, decoder_said, [&](const fs::path& p) {
    if (is_pdf(p)) {
      check_file_size(p, options.limits);
      const PdfPixels pixels =
          render_pdf_page(p, page, options.pdf_dpi, options.limits, decoder_said);
      // One copy of the rendered page into a matrix of its own (a few milliseconds for an A4 page
      // at 200 dpi, beside the rendering's hundreds).
      return cv::Mat(pixels.height, pixels.width, CV_8UC3,
                     const_cast<std::uint8_t*>(pixels.rgb.data()))
          .clone();
    }
    return read_rgb_pixels(p, options.limits, page, decoder_said, path);
  });
}

}  // namespace docsift::io
