// `docsift review apply RESULTS [--file F]`: a person's corrections (review.csv's `corrected`
// column) into the run's journal, and the tables and summary.json rebuilt from it
// (batch/corrections.h; docs/confidence.md, "Corrections"). Exit codes: 0 applied (or nothing new);
// 2 a folder or file that is not there; 3 the folder's lock is taken (a run is writing there) or a
// file cannot be read; 5 a write failed once begun; 7 the CSV is malformed or does not match the
// journal (nothing written).
#include <iostream>
#include <memory>

#include "commands.h"
#include "docsift/batch/corrections.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_review_command(CLI::App& root) {
  struct Options {
    std::string results, file;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "review", "The review queue: apply a person's corrections to a run's results");
  app->require_subcommand(1);
  CLI::App* apply =
      app->add_subcommand("apply",
                          "Write the `corrected` column of RESULTS/review.csv (or --file) into "
                          "RESULTS/results.jsonl, then rebuild predictions.csv, confidence.csv, "
                          "review.csv, documents.csv, line_items.csv and summary.json from it");
  apply->add_option("RESULTS", o->results, "The output folder of docsift run (or merge)")
      ->required();
  apply->add_option("--file", o->file,
                    "The filled-in CSV (review.csv's columns image_file, field, value, corrected; "
                    "any order, others ignored); default RESULTS/review.csv");
  return {app, [o] {
            batch::ApplyOptions options;
            options.results = o->results;
            if (!o->file.empty()) options.file = o->file;
            const batch::ApplyReport r = batch::apply_corrections(options);
            std::cout << "review apply: " << r.applied
                      << (r.applied == 1 ? " correction" : " corrections") << " applied to "
                      << r.pages << (r.pages == 1 ? " page" : " pages") << " (" << r.already
                      << " already applied); " << r.journal.string() << "\n";
            return kExitOk;
          }};
}

}  // namespace docsift::cli
