// `docsift report` behind the command line (docs/report.md): a run's output folder as a static
// HTML report, written with the run's config (its fields, scoring rules and review thresholds),
// and said through the run's log.
#pragma once

#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/config/config.h"

namespace docsift::commands {

// What report was asked, as the command line gives it (docs/cli.md lists the options).
struct ReportRequest {
  std::string run, out = "report", truth, baseline;  // OUT, --out, --truth, --baseline
  std::vector<std::string> pages;                    // --pages
  int max_side = 1100, jobs = 0;                     // --image-size, --jobs (0: one per core)
  bool full_pages = false;
};

// Writes the report; says through `log` how many documents and page images it wrote, and which
// documents are shown without their page image. Throws (docsift/error.h) for the rest: an input not
// there, one that cannot be read, an --out inside the run's folder, a damaged journal.
void report(const ReportRequest& request, const config::Config& config, const batch::Log& log);

}  // namespace docsift::commands
