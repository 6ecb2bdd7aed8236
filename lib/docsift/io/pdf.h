// PDF pages as images, rendered with Poppler's C++ library. Untrusted input: the page count and
// each page's rendered size are checked before anything is rendered, and a damaged, encrypted or
// empty file is a FileError naming it and the reason (the run records it and goes on). No
// LibTorch here (pages.h makes the tensor), so the fuzz build instruments it alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "docsift/io/image_header.h"

namespace docsift::io {

bool is_pdf(const std::filesystem::path& path);  // by the "%PDF-" signature

// Pages in the file; throws FileError when it cannot be opened, is encrypted or has no page.
int pdf_page_count(const std::filesystem::path& path);

// Page `page` (0-based) at `dpi` as RGB on white paper: `rgb` is [height, width, 3] uint8,
// row-major. Throws FileError when the page would render to more than limits.max_pixels, or does
// not render. What Poppler said about a page that rendered (a repaired cross-reference table, say)
// goes to
// `*said`.
struct PdfPixels {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};
PdfPixels render_pdf_page(const std::filesystem::path& path, int page, int dpi,
                          const ImageLimits& limits = {}, std::string* said = nullptr);

// A page's text layer as Poppler extracts it: words with boxes in points (1/72 inch), the origin
// at the page's top left. Born-digital PDFs carry their exact text here, which beats rendering and
// OCR on every count (whether a layer is usable is ocr::usable_text_layer's call, ocr/page.h).
struct PdfWord {
  std::string text;  // UTF-8
  double left = 0, top = 0, right = 0, bottom = 0;
};
struct PdfText {
  double width = 0, height = 0;  // the page, in points
  std::vector<PdfWord> words;
};
// Throws FileError as read_pdf_page does. A page with no text layer gives no words.
PdfText read_pdf_text(const std::filesystem::path& path, int page);

}  // namespace docsift::io
