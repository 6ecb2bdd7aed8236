// `docsift report OUT`: a run's output folder as a static HTML report (docs/report.md). Exit codes:
// 0 written (pages whose image could not be found are shown without it, and said); the library
// throws for the rest: 2 a bad option or an input that is not there, 3 one that cannot be read or
// an --out that is a link or inside the run's folder, 7 a damaged journal, summary or truth.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "config_options.h"
#include "docsift/commands/report.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_report_command(CLI::App& root) {
  struct Options : commands::ReportRequest {
    bool quiet = false;
    ConfigOptions config;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("report",
                                      "Write a static HTML report of a run: each page beside the "
                                      "fields read from it, worst first; with --truth, the scores");
  app->add_option("OUT", o->run, "The output folder of docsift run (or merge)")->required();
  app->add_option("--out", o->out,
                  "Folder for the report (default: report); a new or empty one, or an earlier "
                  "report's; never inside OUT");
  app->add_option("--truth", o->truth,
                  "Ground truth (CSV or JSONL, as eval takes): each field's truth and score");
  app->add_option(
      "--baseline", o->baseline,
      "Another run's output folder: its value beside each field, its scores beside these");
  app->add_option("--pages", o->pages,
                  "A folder to find the pages in first, when the run's inputs (summary.json) are "
                  "elsewhere from here (repeatable)");
  app->add_flag("--full-pages", o->full_pages,
                "Also write each page at its own size, linked from its page");
  app->add_option("--image-size", o->max_side,
                  "The page images' longer side in pixels, at most (default 1100)")
      ->check(CLI::Range(200, 4000));
  app->add_option("--jobs,-j", o->jobs, "Pages written at once (default: one per core, at most 4)")
      ->check(CLI::Range(1, 64));
  app->add_flag("--quiet,-q", o->quiet, "Print problems only");
  o->config.add_to(app, "; the run's, for its fields, scoring rules and review thresholds");
  return {app, [o] {
            // Through the run's log, so that every line carries its time as a run's lines do.
            commands::report(*o, o->config.load(), batch::Log(std::cerr, g_log_format, o->quiet));
            return kExitOk;
          }};
}

}  // namespace docsift::cli
