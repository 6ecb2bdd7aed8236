// `docsift run INPUT...`: the main job, its options parsed into a commands::RunRequest for
// commands::run (docsift/commands/run.h), which does the work. The exit codes: 0 every page
// succeeded, 1 some failed (each has a record in results.jsonl) or a folder or file of the inputs
// could not be read, 5 stopped early or summary.json unwritten, 6 no input pages; run-level
// failures throw (2, 3 or 7). The metrics file is written whatever the outcome.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "checks.h"
#include "commands.h"
#include "config_options.h"
#include "docsift/commands/run.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

struct RunArgs : commands::RunRequest {
  ConfigOptions config;
  std::string log_format = "text";
  bool quiet = false;
};

// What to read and where to write it.
void add_input_options(CLI::App* app, RunArgs& o) {
  app->add_option("INPUT", o.inputs,
                  "Folders of documents and documents themselves, in any mix: images (jpg, jpeg, "
                  "png, tif, tiff, webp, bmp) and PDFs; each page is a record");
  app->add_option("--files-from", o.files_from,
                  "Also read the documents listed in FILE, one path a line (- for standard input)");
  app->add_flag("-0,--null", o.nul,
                "With --files-from: the paths are NUL-separated (find -print0)");
  o.config.add_to(app);
  app->add_option("--model", o.model, "Model folder (default: model.path from the config)");
  app->add_option("--out", o.out,
                  "Output folder for results.jsonl, predictions.csv, confidence.csv, review.csv, "
                  "documents.csv, line_items.csv and summary.json (default: output.dir)");
  CLI::Option* resume = app->add_flag("--resume", o.resume,
                                      "Continue the run in --out: skip every page its journal "
                                      "already has, unless its file changed since");
  app->add_flag("--retry-failed", o.retry_failed,
                "With --resume: read again the pages whose last record failed; the new record "
                "supersedes it")
      ->needs(resume);
  app->add_flag("--resume-by-name", o.resume_by_name,
                "With --resume: skip a page the journal has even if its file changed size or "
                "modification time")
      ->needs(resume);
  app->add_flag("--allow-config-change", o.allow_config_change,
                "With --resume: continue a journal written with another config or model (recorded "
                "in summary.json)");
  app->add_flag("--allow-empty", o.allow_empty,
                "Exit 0, not 6, when the inputs hold no pages (an empty inbox is normal)");
  app->add_flag("--recursive,-r", o.recursive,
                "Also process documents in subfolders of the folders given");
  app->add_flag("--follow-links", o.follow_links,
                "Also read links whose target lies outside the folders given (a --files-from "
                "entry: outside its own folder); without it they are skipped unopened and listed "
                "(default: config input.follow_links)");
  app->add_option("--limit", o.limit, "Process at most N pages in this run")
      ->check(at_least(1, /*whole=*/true));
}

// How to read, how to split the work, and what to say.
void add_control_options(CLI::App* app, RunArgs& o) {
  app->add_option("--engine", o.engine,
                  "ocr (Tesseract and field rules, no weights), vlm (the model in --model) or "
                  "auto: vlm when a model is given, else ocr (default: config extraction.engine)")
      ->check(CLI::IsMember({"auto", "ocr", "vlm"}));
  app->add_option(
      "--device", o.device,
      "cpu, cuda or cuda:N (default: config model.device); the ocr engine runs on the CPU");
  app->add_option("--isolate", o.isolate,
                  "none, or worker: the model runs in a worker process that is recycled, and "
                  "replaced when it crashes or hangs (default: config memory.isolate)")
      ->check(CLI::IsMember({"none", "worker"}));
  app->add_option(
      "--metrics", o.metrics,
      "Write Prometheus text-format metrics here when the run ends, also when it cannot start "
      "(node_exporter's textfile collector): images by status and tier, exit code, last success");
  app->add_option("--shard", o.shard,
                  "K/N: process only shard K of N (1-based; by a hash of each file's path, so "
                  "adding files never moves the others), into OUT/shard-K-of-N. auto: from a Slurm "
                  "job array (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job "
                  "(JOB_COMPLETION_INDEX, with --shards). Merge with docsift merge");
  app->add_option("--shards", o.shards,
                  "With --shard auto: the number of shards (a Kubernetes Job's completions)")
      ->check(CLI::Range(1, batch::kMaxShards));
  app->add_flag("--quiet,-q", o.quiet,
                "No progress output; failed pages, files read again because they changed, failed "
                "pages gone, warnings and errors still go to stderr");
  app->add_option("--log-format", o.log_format,
                  "text, or json: every stderr line a JSON object with time, level and event")
      ->check(CLI::IsMember({"text", "json"}));
}

// Tesseract's OpenMP threads spin while they wait: on 2 cores the samples took 60 s with them and
// 11 s without (docs/bench-history.md, "The OCR engine"). OpenMP reads OMP_THREAD_LIMIT as the
// program loads, and LibTorch's own OpenMP must keep its threads for the vlm engine, so an OCR run
// sets it and starts itself again, once, before anything is done (before --files-from - reads
// standard input, which it can read once).
void limit_ocr_threads() {
  if (std::getenv("OMP_THREAD_LIMIT") != nullptr || g_argv == nullptr) return;
  ::setenv("OMP_THREAD_LIMIT", "1", 1);
  ::execv("/proc/self/exe", g_argv);  // returns only on failure: go on as we are
}

int exit_code_of(batch::RunOutcome outcome) {
  switch (outcome) {
    case batch::RunOutcome::kComplete:
      return kExitOk;
    case batch::RunOutcome::kSomeFailed:
      return kExitSomeFailed;
    case batch::RunOutcome::kStopped:
    case batch::RunOutcome::kSummaryUnwritten:
      return kExitStopped;
    case batch::RunOutcome::kNoPages:
      return kExitNoInput;
  }
  return kExitSomeFailed;
}

int run(RunArgs& o) {
  const batch::Log log(std::cerr,
                       o.log_format == "json" ? batch::LogFormat::kJson : batch::LogFormat::kText,
                       o.quiet);
  o.config_file = o.config.file();
  commands::RunHost host;
  host.load = [&](const std::vector<std::string>& shortcuts) { return o.config.load(shortcuts); };
  host.limit_ocr_threads = limit_ocr_threads;
  host.worker = worker_command();
  host.exit_code = exit_code_of;
  host.failure_code = [](const std::exception_ptr& e) { return failure_of(e).code; };
  host.succeeded = [](int code) { return code == kExitOk || code == kExitSomeFailed; };
  return commands::run(o, host, log);
}

}  // namespace

Command add_run_command(CLI::App& root) {
  auto o = std::make_shared<RunArgs>();
  CLI::App* app = root.add_subcommand(
      "run", "Extract fields from every page of the documents given (the main job)");
  add_input_options(app, *o);
  add_control_options(app, *o);
  return {app, [o] { return run(*o); }};
}

}  // namespace docsift::cli
