// What `docsift run` writes beside its journal, and `docsift merge` writes from many journals,
// derived record by record: the names records go by, the tables' rows (predictions.csv,
// confidence.csv, review.csv; the files themselves are sink.h's), and the totals of summary.json.
// One owner, so that a merged folder is written exactly as a single run writes its own.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "docsift/batch/record.h"
#include "docsift/config/config.h"
#include "docsift/extract/document.h"
#include "docsift/extract/schema.h"
#include "docsift/journal/totals.h"

namespace docsift::batch {

// A file name in the journal, the CSV and the logs. Names are bytes; JSON and CSV are UTF-8. A
// valid UTF-8 name is itself. Any other name is kept exactly as `file_bytes`, its bytes outside
// printable ASCII (and '%') percent-escaped ("lat%E9.png"), which is also its CSV image_file and
// its identity for --resume, while `file` shows it with U+FFFD for the invalid bytes.
struct RecordName {
  std::string file;
  std::optional<std::string> file_bytes;
  const std::string& key() const { return file_bytes ? *file_bytes : file; }
};
RecordName record_name(const std::string& relative);

// `bytes` as UTF-8 for JSON: itself when valid, else with U+FFFD for the invalid bytes.
std::string display_name(const std::string& bytes);

using journal::record_relative;  // journal/totals.h

// predictions.csv in the ground-truth layout: image_file, then one column per field.
std::string csv_header(const std::vector<std::string>& fields);
// One row for a successful record (missing fields as N/A), "" for a failed one.
std::string csv_row(const Record& record, const std::vector<std::string>& fields);
// confidence.csv: predictions.csv's rows and columns, each cell the field's confidence (0 to 1,
// four decimals), empty where the field is N/A or the engine gave none (docs/confidence.md).
std::string confidence_row(const Record& record, const std::vector<std::string>& fields);
// documents.csv (docs/run.md, "Documents of several pages"): predictions.csv's layout with one row
// per file. A file of one page is its page's row. The pages of a file of several are held until
// the latest record of every page is ok, then merged by the rules their records carry
// (extract/document.h) into one row named for the file: a failed page holds its document back, as
// a failed page has no row in predictions.csv. Fed the latest records in any order (a page read
// again comes later in the journal), each page once, as the tables are.
class DocumentRows {
 public:
  explicit DocumentRows(std::vector<std::string> fields) : fields_(std::move(fields)) {}
  // The row `record` completes: its own for a file of one page, its document's when it was the
  // last of its file's pages to be ok, else "".
  std::string add(const Record& record);
  // Takes back the last add (another table could not take the record's rows).
  void undo();

 private:
  struct Pending {
    Record::Document document;
    std::map<int, std::optional<extract::PageValues>>
        pages;  // page (1-based) → its values; none: failed
  };
  std::vector<std::string> fields_;
  std::map<std::string, Pending> pending_;  // the file's key → its pages so far
  // The last add's file and what pending_ held for it before.
  std::optional<std::pair<std::string, std::optional<Pending>>> before_;
};

// line_items.csv: one row per line item or transaction of a successful record that read a table
// (docs/run.md, "line_items.csv"): its page, its row number from 1, and its cells.
std::string line_items_header();
std::string line_item_rows(const Record& record);

// review.csv: one row per field a successful record lists under review, in its order (rising
// confidence: extract/review_queue.h), with why and the threshold, and an empty `corrected` cell
// for the person (docs/confidence.md, "Corrections").
std::string review_header();
std::string review_rows(const Record& record);

// Lists under `record.review` the page's queue (extract::review_queue: a required value missing,
// sums or list counts that disagree, a confidence under review.threshold or the field's own, a
// value without one), with `review_reasons` and `review_thresholds`; an ok record with
// confidences only.
void mark_review(Record& record, const config::ReviewConfig& review,
                 const extract::FieldSchema& schema);

using journal::Totals;  // journal/totals.h

}  // namespace docsift::batch
