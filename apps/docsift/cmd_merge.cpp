// `docsift merge FOLDER... --out DIR`: the output folders of sharded runs into one. Exit codes: 0
// every image of every shard succeeded and nothing is missing; 1 some images failed, or the merge
// is incomplete (a duplicate, an unfinished shard, an image --expect found that no shard recorded);
// mixed configs (2) and unreadable or busy folders (3) throw.
#include <iostream>

#include "commands.h"
#include "docsift/batch/log.h"
#include "docsift/batch/merge.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_merge_command(CLI::App& root) {
  struct Options {
    std::vector<std::string> folders;
    std::string out, expect;
    bool recursive = false, allow_config_change = false, quiet = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app =
      root.add_subcommand("merge",
                          "Merge the output folders of sharded runs (docsift run --shard) into one "
                          "results.jsonl, its tables (predictions.csv, confidence.csv, review.csv, "
                          "documents.csv, line_items.csv) and summary.json");
  app->add_option("FOLDER", o->folders, "Output folders of docsift run, e.g. results/shard-*")
      ->required();
  app->add_option("--out", o->out, "Folder for the merged files (never one of the FOLDERs)")
      ->required();
  app->add_option(
      "--expect", o->expect,
      "The folder the shards scanned: list its images that no shard recorded (exit 1 if any)");
  app->add_flag("--recursive,-r", o->recursive,
                "With --expect: also look in subfolders, as run --recursive did");
  app->add_flag("--allow-config-change", o->allow_config_change,
                "Merge folders made with different configs or models (listed in summary.json)");
  app->add_flag("--quiet,-q", o->quiet, "Print problems only");
  return {app, [o] {
            batch::MergeOptions options;
            options.folders.assign(o->folders.begin(), o->folders.end());
            options.out_dir = o->out;
            if (!o->expect.empty()) options.expect_dir = o->expect;
            options.recursive = o->recursive;
            options.allow_config_change = o->allow_config_change;
            const batch::MergeReport r = batch::merge_outputs(options);
            // Through the run's log, so that every line carries its time as a run's lines do.
            const batch::Log log(std::cerr, g_log_format, o->quiet);
            for (const auto& line : r.unfinished) log.warning("unfinished", "unfinished: " + line);
            for (const auto& line : r.duplicates) log.warning("duplicate", "duplicate: " + line);
            for (const auto& line : r.missing) log.warning("missing", "missing: " + line);
            // Said with --quiet too when the merge is incomplete.
            log.write(
                r.complete() ? batch::Log::Level::kInfo : batch::Log::Level::kNotice, "merged",
                "merged " + std::to_string(o->folders.size()) +
                    " folders: " + std::to_string(r.records) + " images (" + std::to_string(r.ok) +
                    " ok, " + std::to_string(r.failed) + " failed" +
                    (r.gone > 0 ? ", " + std::to_string(r.gone) + " gone pages left out" : "") +
                    ") into " + o->out + (r.complete() ? "" : "; incomplete, see above"));
            return r.complete() && r.failed == 0 ? kExitOk : kExitSomeFailed;
          }};
}

}  // namespace docsift::cli
