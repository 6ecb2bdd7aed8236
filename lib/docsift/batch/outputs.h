// What `docsift run` writes beside its journal, and `docsift merge` writes from many journals, derived
// record by record: the names records go by, predictions.csv rows, and the totals of summary.json.
// One owner, so that a merged folder is written exactly as a single run writes its own.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace docsift::batch {

// A file name in the journal, the CSV and the logs. Names are bytes; JSON and CSV are UTF-8. A
// valid UTF-8 name is itself. Any other name is kept exactly as `file_bytes`, its bytes outside
// printable ASCII (and '%') percent-escaped ("lat%E9.png"), which is also its CSV image_file and its
// identity for --resume, while `file` shows it with U+FFFD for the invalid bytes.
struct RecordName {
  std::string file;
  std::optional<std::string> file_bytes;
  const std::string& key() const { return file_bytes ? *file_bytes : file; }
};
RecordName record_name(const std::string& relative);

// `bytes` as UTF-8 for JSON: itself when valid, else with U+FFFD for the invalid bytes.
std::string display_name(const std::string& bytes);

// The inverse of record_name: the relative path's bytes a record was made from (its "file_bytes"
// unescaped, else its "file"). Sorting by it gives the order `run` scans a folder in.
std::string record_relative(const nlohmann::json& record);

// predictions.csv in the ground-truth layout: image_file, then one column per field.
std::string csv_header(const std::vector<std::string>& fields);
// One row for a successful record (missing fields as N/A), "" for a failed one.
std::string csv_row(const nlohmann::json& record, const std::vector<std::string>& fields);

// What summary.json reports over whole journals, accumulated record by record, so nothing per
// image stays in memory.
struct Totals {
  int ok = 0, failed = 0;
  std::map<std::string, int> tiers;
  std::int64_t generated = 0, records = 0;
  double model_seconds = 0, total_seconds = 0, high_allocated = 0, high_rss = 0;
  std::set<std::string> config_hashes;

  void add(const nlohmann::json& record);
  // Adds "tiers", "throughput" (seconds per image, model and overhead seconds, generated tokens)
  // and "memory_high_water" to `summary`.
  void describe(nlohmann::json& summary) const;
};

}  // namespace docsift::batch
