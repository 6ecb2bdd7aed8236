// `docsift report`: a run's output folder as a static HTML report a person reads in a browser from
// the file system (docs/report.md): index.html, one page per document with its page image and
// fields, the images. With the truth, the scores and risk–coverage curves; with a baseline (another
// run's folder), its values beside these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/confidence.h"
#include "docsift/extract/schema.h"
#include "docsift/extract/scoring_rules.h"
#include "docsift/html_report/page_image.h"

namespace docsift::html_report {

struct ReportOptions {
  std::filesystem::path run;                   // OUT: a folder `docsift run` or `merge` wrote
  std::filesystem::path out = "report";        // the report's folder
  std::optional<std::filesystem::path> truth;  // a ground-truth CSV or JSONL (.jsonl by its name)
  std::optional<std::filesystem::path> baseline;  // another run's output folder
  std::vector<std::filesystem::path> pages;       // where to look for the pages first (--pages)
  extract::FieldSchema schema;                    // the run's schema (extraction.fields)
  extract::ScoringRules rules;                    // eval.*
  extract::ReviewThresholds thresholds;  // review.threshold and review.fields, for the curves
  ImageOptions images;
  int jobs = 0;  // pages written at once; 0: one per core, at most 4
};

struct ReportResult {
  int documents = 0, failed = 0, images = 0;
  // Documents shown without their page image: how many, and the first few as "name: why".
  int images_missing = 0;
  std::vector<std::string> missing_examples;
  std::uint64_t bytes = 0;  // of every file written
  std::filesystem::path index;
};

// Writes the report. Throws before writing anything when an input is not there
// (InputMissingError), cannot be read (InputUnreadableError) or is malformed (MalformedInputError:
// a damaged journal, summary.json or truth), and when `out` is a symbolic link or lies in the run's
// folder or the baseline's (FileError, as `run` and `merge` refuse theirs: batch/output_folder.h),
// or is a folder that holds other files and no earlier report (ConfigError: nothing of the user's
// is overwritten). A page whose image cannot be found or decoded is shown without it and counted.
ReportResult write_report(const ReportOptions& options);

}  // namespace docsift::html_report
