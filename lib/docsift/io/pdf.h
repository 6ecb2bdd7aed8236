// PDF pages as images, rendered with Poppler's C++ library. Untrusted input: the page count and
// each page's rendered size are checked before anything is rendered, and a damaged, encrypted or
// empty file is a FileError naming it and the reason (the run records it and goes on).
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>

#include "docsift/io/image_file.h"

namespace docsift::io {

bool is_pdf(const std::filesystem::path& path);  // by the "%PDF-" signature

// Pages in the file; throws FileError when it cannot be opened, is encrypted or has no page.
int pdf_page_count(const std::filesystem::path& path);

// Page `page` (0-based) at `dpi` as an [H, W, 3] uint8 RGB tensor on white paper. Throws FileError
// when the page would render to more than limits.max_pixels, or does not render.
at::Tensor read_pdf_page(const std::filesystem::path& path, int page, int dpi, const ImageLimits& limits = {});

}  // namespace docsift::io
