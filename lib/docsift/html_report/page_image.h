// A record's page as the report shows it: the file found again from the run's inputs, decoded
// through io/ (the run's own size caps, pinned_file.h's checks), and encoded as a JPEG small enough
// that 1,000 pages stay under about 100 MB (docs/report.md, "Page images").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docsift/io/source.h"
#include "docsift/journal/record.h"

namespace docsift::html_report {

// Where the report looks for a record's file: the folders given with --pages first, then the
// run's inputs as summary.json lists them (a folder: the record's name under it; a file: itself
// when the record names it), then, for a relative name, the name itself under the working folder.
struct PageSearch {
  std::vector<std::filesystem::path> folders;  // --pages
  std::vector<std::string> inputs;             // summary.json's "inputs", as the run was given them
};

// A record's file found again: the name to read, and the file it led to when it was found (links
// resolved), which the read must find there again (io/pinned_file.h).
struct FoundPage {
  std::filesystem::path path, real;
};

// The file a record was read from, or nullopt with `*why` when none of the places has it. A name
// under a folder is taken only where it stays in that folder (a link put in the inbox since the
// run, or a record edited to "../x", leads nowhere); an absolute name only when it is one of the
// run's inputs or lies in one of the folders.
std::optional<FoundPage> find_page_file(const journal::Record& record, const PageSearch& search,
                                        std::string* why);

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

// Page `page` (0-based) of `file`, read through one opening that must be the file found and, when
// the record has its source stamp, of the same size and content hash as the page the run read.
// Throws docsift::FileError naming the file when it is another file, cannot be read or decoded;
// the report then shows the page without its image, and says why.
PageImage render_page_image(const FoundPage& file, int page, const ImageOptions& options,
                            const std::optional<io::SourceStamp>& source);

}  // namespace docsift::html_report
