// A scanned file as pages: an image is one page, a PDF (rendered with Poppler) or a multi-page
// TIFF has several. Each page is its own record, named "invoice.pdf#page=2"; a file with one page
// keeps its plain name, so ground truth written per file still matches (and eval treats
// "x.pdf#page=1" and "x.pdf" as the same document).
#pragma once

#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <string>

#include "docsift/io/image_file.h"
#include "docsift/io/page_name.h"

namespace docsift::io {

struct PageOptions {
  int pdf_dpi = 200;
  int max_pages = 100;  // per file; more is a FileError for that file
  ImageLimits limits;
};

// Pages in the file (1 for a single image). Throws FileError for a PDF that is damaged, encrypted
// or empty, or a file with more than max_pages.
// `expected_real` (here and in read_page): the path the scan resolved the name to; the file the
// name leads to now must be that one (pinned_file.h), else a FileError. Empty: no check.
int page_count(const std::filesystem::path& path, const PageOptions& options,
               const std::filesystem::path& expected_real = {});

// Page `page` (0-based) as a continuous H × W RGB matrix (CV_8UC3) of its own: an image file's
// (read_rgb_pixels, image_file.h, which says what is checked and refused) or a PDF page rendered at
// options.pdf_dpi. Throws FileError. An image decoder's message about a page that decoded goes to
// `*decoder_said` (image_file.h). No LibTorch: the families make their tensors (image/pages.h).
cv::Mat read_page_pixels(const std::filesystem::path& path, int page, const PageOptions& options,
                         std::string* decoder_said = nullptr,
                         const std::filesystem::path& expected_real = {});

}  // namespace docsift::io
