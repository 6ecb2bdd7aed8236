// `docsift run INPUT...`: the main job. Maps the batch result to exit codes: 0 every page
// succeeded, 1 some failed (each has a record in results.jsonl) or a folder or file of the inputs
// could not be read, 5 stopped early or summary.json unwritten, 6 no input pages; run-level
// failures throw (2, 3 or 7). The metrics file is written whatever the outcome.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "checks.h"
#include "commands.h"
#include "config_options.h"
#include "docsift/batch/model_support.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/report.h"
#include "docsift/batch/run.h"
#include "docsift/batch/run_ending.h"
#include "docsift/batch/run_start.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/io/file_list.h"
#include "docsift/io/input_file.h"
#include "docsift/io/same_file.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

struct RunArgs {
  std::vector<std::string> inputs;
  std::string model, device, isolate, metrics, shard, engine, files_from, log_format = "text";
  std::optional<int> shards;
  std::optional<std::string> out;  // set but empty is an error, not the default folder
  ConfigOptions config;
  std::optional<int> limit;
  bool resume = false, retry_failed = false, resume_by_name = false, recursive = false,
       quiet = false, allow_config_change = false, allow_empty = false, nul = false,
       follow_links = false;
};

// --files-from: the list's entries (io/file_list.h); "-" reads standard input.
std::vector<std::string> read_file_list(const std::string& from, bool nul) {
  std::ifstream file;
  if (from != "-") file = io::open_input(from, "--files-from");
  return io::read_file_list(from == "-" ? std::cin : file, nul, from);
}

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

// The metrics file says how every run ended, one that could not start included. Failing to write
// it is said, and never changes the run's own exit code.
class MetricsFile {
 public:
  MetricsFile(const RunArgs& o, const batch::Log& log) : o_(o), log_(log) {}

  // Refuses (exit 2) a --metrics path that is a file the run reads or one of `out_dir`'s own.
  void check(const std::filesystem::path& out_dir, const std::string& model) {
    if (o_.metrics.empty()) return;
    io::ReadFiles reads;
    for (const std::string& input : o_.inputs) {
      reads.add(input, "INPUT");
      reads.add_folder(input, "INPUT", /*pages_only=*/true);
    }
    reads.add(o_.files_from, "--files-from");
    reads.add(o_.config.file(), "--config");
    if (!model.empty()) reads.add_folder(model, "the model folder", /*pages_only=*/false);
    try {
      batch::refuse_to_overwrite(o_.metrics, "--metrics", reads, out_dir);
    } catch (const ConfigError&) {
      refused_ = true;  // the path is one the run reads or writes: never written
      throw;
    }
  }

  void write(const batch::RunSummary* run, int code) const {
    if (o_.metrics.empty() || refused_) return;
    std::string dropped;
    try {
      batch::write_metrics(o_.metrics, run, {code, code == kExitOk || code == kExitSomeFailed},
                           &dropped);
    } catch (const std::exception& e) {
      log_.error("metrics",
                 std::string(e.what()) + "; the metrics file is not updated (the exit code stays " +
                     std::to_string(code) + ")",
                 {{"file", o_.metrics}, {"exit_code", code}});
    }
    if (!dropped.empty()) log_.warning("metrics", dropped, {{"file", o_.metrics}});
  }

 private:
  const RunArgs& o_;
  const batch::Log& log_;
  bool refused_ = false;
};

// The command's own options as config keys (they win over --config and --set), after the checks
// that need no config.
std::vector<std::string> shortcuts_of(const RunArgs& o) {
  std::vector<std::string> overrides;
  if (!o.device.empty()) overrides.push_back("model.device=" + o.device);
  if (!o.model.empty()) overrides.push_back("model.path=" + o.model);
  if (!o.isolate.empty()) overrides.push_back("memory.isolate=" + o.isolate);
  if (!o.engine.empty()) overrides.push_back("extraction.engine=" + o.engine);
  if (o.out) {
    if (o.out->empty())
      throw ConfigError("--out: empty; give the output folder (or leave --out out for output.dir)");
    overrides.push_back("output.dir=" + *o.out);
  }
  if (o.inputs.empty() && o.files_from.empty())
    throw ConfigError("run: give the folders or documents to read (or --files-from FILE)");
  if (o.nul && o.files_from.empty()) throw ConfigError("-0/--null goes with --files-from");
  if (o.shards && o.shard != "auto") throw ConfigError("--shards N goes with --shard auto");
  return overrides;
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

// Each shard its own folder (journal, CSV, summary, lock), so every task of an array runs the same
// command line. An --out that already is the shard's folder (a shard run again by hand) is used as
// it is, not nested in itself.
void place_shard(batch::RunOptions& options, const RunArgs& o, const batch::Log& log) {
  if (o.shard.empty()) return;
  options.shard = o.shard == "auto" ? batch::shard_from_environment(o.shards, ::getenv)
                                    : batch::parse_shard(o.shard);
  if (options.out_dir.filename() == "") options.out_dir = options.out_dir.parent_path();
  if (options.out_dir.filename() != options.shard->folder_name())
    options.out_dir /= options.shard->folder_name();
  log.info("shard",
           "shard " + std::to_string(options.shard->index) + " of " +
               std::to_string(options.shard->count) + " (" + options.shard->source +
               "), writing to " + options.out_dir.string(),
           {{"index", options.shard->index}, {"count", options.shard->count}});
}

// Loads the config and fills `options`; everything a run checks before its first page.
config::Config prepare_run(const RunArgs& o, batch::RunOptions& options, MetricsFile& metrics,
                           const batch::Log& log) {
  metrics.check(o.out.value_or(""), o.model);  // before anything, a failed start's metrics included
  const std::vector<std::string> shortcuts = shortcuts_of(o);
  for (const std::string& input : o.inputs) {
    options.inputs.push_back({input, false});
    options.named.push_back(input);
  }
  io::check_inputs_exist(options.inputs);  // before the OCR notice and the restart below
  config::Config cfg = o.config.load(shortcuts);
  const bool ocr = cfg.extraction.engine == config::Engine::Ocr;
  if (!ocr && cfg.model.path.empty()) {
    throw ConfigError(
        "run: the vlm engine needs --model DIR (or model.path in the config); without one, "
        "--engine ocr reads pages with Tesseract");
  }
  if (ocr) limit_ocr_threads();
  if (!o.files_from.empty()) {
    for (const std::string& path : read_file_list(o.files_from, o.nul))
      options.inputs.push_back({path, true});
    options.named.push_back("--files-from " + o.files_from);
  }
  batch::say_engine(cfg, o.device, log);
  options.out_dir = cfg.output.dir;
  place_shard(options, o, log);
  metrics.check(options.out_dir, cfg.model.path);
  batch::prepare_engine(cfg, log);
  options.recursive = o.recursive;
  options.follow_links = o.follow_links || cfg.input.follow_links;
  options.resume = o.resume;
  options.retry_failed = o.retry_failed;
  options.resume_by_name = o.resume_by_name;
  options.allow_config_change = o.allow_config_change;
  options.allow_empty = o.allow_empty;
  options.limit = o.limit;
  options.progress_bar = ::isatty(STDERR_FILENO) != 0;
  options.worker = worker_command();
  return cfg;
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

int run(const RunArgs& o) {
  const batch::Log log(std::cerr,
                       o.log_format == "json" ? batch::LogFormat::kJson : batch::LogFormat::kText,
                       o.quiet);
  const auto route_warnings = batch::route_library_warnings(log);
  MetricsFile metrics(o, log);
  batch::RunOptions options;
  batch::RunSummary s;
  try {
    const config::Config cfg = prepare_run(o, options, metrics, log);
    s = batch::run_batch(cfg, options, log);
  } catch (...) {
    metrics.write(nullptr, failure_of(std::current_exception()).code);
    throw;
  }
  const batch::RunEnding end = batch::end_of_run(s, options, o.allow_empty, exit_code_of);
  for (const batch::EndLine& line : end.lines)
    log.write(line.level, line.event, line.message, line.fields);
  metrics.write(&s, end.exit_code);
  return end.exit_code;
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
