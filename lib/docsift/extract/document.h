// A document of several pages read as one (docs/run.md, "Documents of several pages"): each page
// is read and journaled on its own, so a failure or a resume touches one page; documents.csv then
// gives one row per file, each field from the pages its schema `pages:` rule names.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "docsift/extract/schema.h"

namespace docsift::extract {

// What one page gave: field → value (N/A or absent when the page has none), and field → the
// value's confidence where the reader gave one.
struct PageValues {
  std::map<std::string, std::string> fields;
  std::map<std::string, double> confidence;
};

// The schema's page rules other than kFirst, by field: what a record of a page of several carries
// (journal/record.h, Record::Document).
std::map<std::string, PageRule> page_rules(const FieldSchema& schema);

// The document's values from its pages, in page order. A field follows its rule in `rules`: the
// last page with a value, or every page's list items joined with " | " in page order; a field
// without one takes the first page's value. A value's confidence is its page's; a joined list's
// the lowest of its pages', and none when one of them has none. Every field any page names is in
// `fields`, N/A when no page has a value.
PageValues document_values(const std::vector<PageValues>& pages,
                           const std::map<std::string, PageRule>& rules);

}  // namespace docsift::extract
