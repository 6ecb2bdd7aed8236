// One document of the report: its fields as a person checks them (value, confidence, review, the
// truth and its score, the baseline's value, the box), what the index lists of it, and the order
// the index lists documents in (worst first). Built from the journal's record and what the report
// read beside it; the pages themselves are rendered by pages.h.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "docsift/eval/evaluate.h"
#include "docsift/extract/schema.h"
#include "docsift/journal/record.h"

namespace docsift::html_report {

// What the report read beside the journal, shared by every document (read-only while the pages
// are written, so the workers share it).
struct Context {
  extract::FieldSchema schema;
  const eval::Records* truth = nullptr;                   // with --truth
  std::map<std::string, const eval::ImageScore*> scores;  // eval key → the evaluation's scores
  const eval::Records* baseline = nullptr;                // with --baseline: its latest ok records
  std::set<std::string> baseline_failed;  // ... and its pages whose latest record failed
};

// The name eval matches a record to the truth by (eval/evaluate.cpp reads a journal so):
// the file's base name, "x.pdf#page=1" as "x.pdf".
std::string eval_key(const journal::Record& record);

struct FieldView {
  std::string name;
  std::optional<std::string> value;  // nullopt: no value (N/A, or the page failed)
  std::optional<double> confidence;
  bool review = false;                    // under review.threshold (the record's "review")
  std::optional<std::string> truth;       // with --truth, for a document in it; "N/A" stays "N/A"
  std::optional<double> score;            // a field the evaluation scored
  bool baseline_known = false;            // the baseline has a record of this document
  std::optional<std::string> baseline;    // its value (nullopt: none)
  std::optional<std::array<int, 4>> box;  // x, y, width, height in the page's pixels
  std::optional<std::string> original;    // corrected by a person (review apply): the value read
  bool wrong() const { return score && *score < 1.0; }
  bool changed() const { return baseline_known && baseline != value; }
};

// The fields a document's page lists, in the schema's order: those of its type (the truth's type
// where the truth has it, else the one read), and any other that was read, is in the truth, or was
// scored.
std::vector<FieldView> field_views(const journal::Record& record, const Context& context);

// One value of a document's review queue (the record's "review", with its reason and threshold).
struct QueuedValue {
  std::string field, value, reason;
  std::optional<double> confidence, threshold;
};

// What the index lists of a document, and the little a page needs of its neighbours.
struct Entry {
  int number = 0;            // its place in the index, from 1; names its files (html.h)
  std::uint64_t offset = 0;  // its latest record's line in the journal
  std::string name;          // the record's "file", as people read it
  std::string status;        // "ok" or "failed"
  std::string error;         // failed: why
  std::string type;          // DOCUMENT_TYPE as read, else the truth's
  std::string tier;
  double seconds = 0;  // timings_s.total
  int fields_read = 0, review = 0, wrong = 0;
  std::optional<double> accuracy;    // with --truth, a document in it
  std::optional<int> changed;        // with --baseline: fields whose value differs
  std::vector<std::string> flagged;  // fields under review or wrong, for the index's filter
  std::vector<QueuedValue> queue;    // its review queue, for the queue page (pages.h: queue_page)
  bool failed() const { return status == "failed"; }
};
Entry entry_of(const journal::Record& record, const std::vector<FieldView>& fields,
               std::uint64_t offset);

// Worst first: failed pages, then the most fields under review or wrong, then the lowest accuracy,
// then by name (so the order is the same on every run of the report).
bool worse_first(const Entry& a, const Entry& b);

}  // namespace docsift::html_report
