// `docsift review apply RESULTS [--file F]`: a person's corrections (review.csv's `corrected`
// column) into the run's journal, and the tables and summary.json rebuilt from it
// (batch/corrections.h; docs/confidence.md, "Corrections"). Exit codes: 0 applied (or nothing new);
// 2 a folder or file that is not there; 3 the folder's lock is taken (a run is writing there) or a
// file cannot be read; 5 a write failed once begun; 7 the CSV is malformed or does not match the
// journal (nothing written).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "docsift/batch/corrections.h"
#include "docsift/batch/seller_list.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

int list_sellers(const std::vector<std::string>& runs, const std::string& out, bool checked) {
  batch::SellerListOptions options;
  options.results.assign(runs.begin(), runs.end());
  options.out = out;
  options.checked = checked;
  const batch::SellerListReport r = batch::write_seller_list(options);
  std::cout << "review sellers: " << r.sellers << (r.sellers == 1 ? " seller" : " sellers") << ", "
            << r.addressed << " with an address (" << r.lines << " lines), from " << r.given
            << " of " << r.pages << " pages of " << r.runs << (r.runs == 1 ? " run" : " runs")
            << "; left out: " << r.unconfirmed << " queued and not corrected"
            << (checked ? "" : " (--checked lists them)") << ", " << r.unfit
            << " the list cannot hold; " << out << "\n";
  return kExitOk;
}

}  // namespace

Command add_review_command(CLI::App& root) {
  struct Options {
    std::string results, file;
    std::vector<std::string> runs;
    std::string out;
    bool checked = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "review",
      "The review queue: apply a person's corrections to a run's results, and list the sellers "
      "they confirm for the next run");
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
  CLI::App* sellers = app->add_subcommand(
      "sellers",
      "Write the sellers (SUPPLIER) and their addresses (BUSINESS_ADDRESS) that reviewed runs "
      "accepted or a person corrected, as a list for the next run's ocr.known_sellers");
  sellers->add_option("RESULTS", o->runs, "Output folders of docsift run (or merge)")->required();
  sellers->add_option("--out", o->out, "The list to write (NAME, a tab, ADDRESS per line)")
      ->required();
  sellers->add_flag("--checked", o->checked,
                    "A person worked the runs' whole queues: values queued and not corrected "
                    "were right, and are listed too");
  return {app, [o, sellers] {
            if (sellers->parsed()) return list_sellers(o->runs, o->out, o->checked);
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
