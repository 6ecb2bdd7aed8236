// What the journal's records add up to (summary.json's totals, the report's index), and the
// relative path a record was made from. The run, merge and the report read them alike.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "docsift/journal/record.h"

namespace docsift::journal {

// What summary.json reports over whole journals, accumulated record by record, so nothing per
// image stays in memory.
struct Totals {
  // Pages by the status of their latest record; a gone marker counts only in `gone`, never as a
  // record with timings.
  int ok = 0, failed = 0, gone = 0;
  std::map<std::string, int> tiers;
  std::int64_t generated = 0, records = 0;
  double model_seconds = 0, total_seconds = 0, high_allocated = 0, high_rss = 0;
  std::set<std::string> config_hashes;
  // The review queue (docs/confidence.md), over the latest ok records that carry confidences:
  // pages with nothing to review, fields accepted, fields to review.
  int pages_accepted = 0, pages_with_confidence = 0;
  std::int64_t fields_accepted = 0, fields_to_review = 0;
  // Values a person corrected (`docsift review apply`), over the latest ok records.
  int corrected_pages = 0;
  std::int64_t corrected_fields = 0;
  // Pages that agree (batch/agreement.h), over the latest ok records: the values compared, those
  // another page read alike, and of those the ones the run respelled as the other pages read them.
  std::int64_t values_compared = 0, values_agreed = 0, values_respelled = 0;

  void add(const Record& record);
  // Fills the summary's totals: ok, failed, tiers, throughput (seconds per image, model and
  // overhead seconds, generated tokens) and the memory high-water marks.
  void describe(Summary& summary) const;
};

// The inverse of record_name: the relative path's bytes a record was made from (its "file_bytes"
// unescaped, else its "file"). Sorting by it gives the order `run` scans a folder in.
std::string record_relative(const Record& record);

}  // namespace docsift::journal
