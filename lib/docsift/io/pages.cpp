#include "docsift/io/pages.h"

#include "docsift/error.h"
#include "docsift/io/pdf.h"

namespace docsift::io {
namespace fs = std::filesystem;

int page_count(const fs::path& path, const PageOptions& options) {
  const int pages = is_pdf(path) ? pdf_page_count(path, options.max_pages) : image_page_count(path);
  if (pages > options.max_pages) {
    throw FileError(path.string() + ": " + std::to_string(pages) + " pages, over input.max_pages (" +
                    std::to_string(options.max_pages) + "); split the file or raise the limit");
  }
  return pages;
}

at::Tensor read_page(const fs::path& path, int page, const PageOptions& options) {
  if (is_pdf(path)) {
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (!ec && bytes > options.limits.max_file_bytes) {
      throw FileError(path.string() + ": file of " + std::to_string(bytes >> 20) + " MiB exceeds the " +
                      std::to_string(options.limits.max_file_bytes >> 20) + " MiB limit");
    }
    return read_pdf_page(path, page, options.pdf_dpi, options.limits);
  }
  return read_rgb_image(path, options.limits, page);
}

}  // namespace docsift::io
