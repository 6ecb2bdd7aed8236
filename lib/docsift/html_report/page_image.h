// A record's page as the report shows it: the file found again from the run's inputs, decoded
// through io/ (the run's own size caps, pinned_file.h's checks), and encoded as a JPEG small enough
// that 1,000 pages stay under about 100 MB (docs/report.md, "Page images").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/record.h"

namespace docsift::html_report {

// Where the report looks for a record's file: the folders given with --pages first, then the
// run's inputs as summary.json lists them (a folder: the record's name under it; a file: itself
// when the record names it), then the name itself (an absolute path, or one relative to the
// working folder, as `run` was given it).
struct PageSearch {
  std::vector<std::filesystem::path> folders;  // --pages
  std::vector<std::string> inputs;             // summary.json's "inputs", as the run was given them
};
// The file a record was read from, or nullopt when none of the places has it.
std::optional<std::filesystem::path> find_page_file(const batch::Record& record,
                                                    const PageSearch& search);

struct ImageOptions {
  int max_side = 1100;                // the thumbnail's longer side, in pixels, at most
  std::size_t max_bytes = 80 * 1024;  // a thumbnail over this is encoded again, smaller
  bool full = false;                  // also the page at its own size (--full-pages)
  int pdf_dpi = 100;                  // a PDF page is drawn at this resolution for the thumbnail
};

struct PageImage {
  int width = 0, height = 0;  // the thumbnail's
  std::string jpeg;           // the thumbnail
  std::string full_jpeg;      // with ImageOptions::full
};

// Page `page` (0-based) of `file`. Throws docsift::FileError naming the file when it cannot be
// read or decoded; the report then shows the page without its image, and says why.
PageImage render_page_image(const std::filesystem::path& file, int page,
                            const ImageOptions& options);

}  // namespace docsift::html_report
