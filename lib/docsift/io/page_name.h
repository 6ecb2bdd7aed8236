// Record names of pages: page N (1-based) of a PDF or multi-page TIFF is "invoice.pdf#page=N"; a
// file with one page keeps its plain name, so ground truth written per file still matches. No
// LibTorch here: eval and merge compare names too.
#pragma once

#include <string>
#include <string_view>

namespace docsift::io {

// The record name of page `page` (0-based) of a file with `pages` pages.
std::string page_name(const std::string& relative, int page, int pages);
// The file a record name belongs to: the name without its "#page=N".
std::string_view file_of(std::string_view name);
// The page number (1-based) in a record name, 0 when it names a whole file.
int page_of(std::string_view name);
// A name as eval compares documents: "x.pdf#page=1" is "x.pdf".
std::string_view document_key(std::string_view name);

}  // namespace docsift::io
