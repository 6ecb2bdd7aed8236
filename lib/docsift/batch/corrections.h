// `docsift review apply`: a person's corrections, filled into review.csv's `corrected` column, back
// into a run's folder (docs/confidence.md, "Corrections"). Each page with corrections gets one new
// journal record, a copy of its latest with the corrected values (confidence 1.0, out of the review
// queue) and what they replaced under "corrections"; the journal append is the commit point. The
// tables and summary.json are then rebuilt from the journal as a run rebuilds them (sink.h's
// Tables, outputs.h's Totals), so that a process killed anywhere leaves a folder that the same
// apply (or `run --resume`) completes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace docsift::batch {

struct ApplyOptions {
  std::filesystem::path results;              // the output folder of `docsift run` (or `merge`)
  std::optional<std::filesystem::path> file;  // the filled-in CSV; results/review.csv when absent
};

struct ApplyReport {
  int applied = 0;  // corrections journaled now
  int pages = 0;    // pages given a new record
  int already = 0;  // rows the journal already holds (the same file applied again)
  int empty = 0;    // rows whose `corrected` cell is empty: not corrections
  bool rewrote_outputs =
      false;  // the tables or summary.json were written (they differed from the journal)
  std::filesystem::path journal;
};

// Reads the CSV (CRLF or LF, a UTF-8 BOM, quoted cells, columns in any order by header name:
// image_file, field, value, corrected; others ignored) and checks every filled row against the
// journal's latest records before anything is written: the page must be there and ok, the field one
// of the run's, and `value` the page's current value (or, for a correction already applied, its
// original). Throws docsift::MalformedInputError (exit 7) naming FILE:LINE and the problem, with
// nothing written; InputMissingError / ConfigError (2) for a folder or file that is not there;
// FileError (3) when a run holds the folder's lock or a file cannot be read; OutputWriteError (5)
// when a write fails once begun (what was journaled stays; the same apply again completes it).
// Takes the folder's write lock (lock.h) for the writes. When nothing is new, writes nothing unless
// the tables or summary.json disagree with the journal (a killed apply), which it rebuilds.
ApplyReport apply_corrections(const ApplyOptions& options);

}  // namespace docsift::batch
