#include "docsift/commands/run.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "docsift/batch/model_support.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/report.h"
#include "docsift/batch/run_start.h"
#include "docsift/error.h"
#include "docsift/io/file_list.h"
#include "docsift/io/input_file.h"
#include "docsift/io/same_file.h"

namespace docsift::commands {
namespace {

// --files-from: the list's entries (io/file_list.h); "-" reads standard input.
std::vector<std::string> read_file_list(const std::string& from, bool nul) {
  std::ifstream file;
  if (from != "-") file = io::open_input(from, "--files-from");
  return io::read_file_list(from == "-" ? std::cin : file, nul, from);
}

// The metrics file says how every run ended, one that could not start included. Failing to write
// it is said, and never changes the run's own exit code.
class MetricsFile {
 public:
  MetricsFile(const RunRequest& o, const RunHost& host, const batch::Log& log)
      : o_(o), host_(host), log_(log) {}

  // Refuses (exit 2) a --metrics path that is a file the run reads or one of `out_dir`'s own.
  void check(const std::filesystem::path& out_dir, const std::string& model) {
    if (o_.metrics.empty()) return;
    io::ReadFiles reads;
    for (const std::string& input : o_.inputs) {
      reads.add(input, "INPUT");
      reads.add_folder(input, "INPUT", /*pages_only=*/true);
    }
    reads.add(o_.files_from, "--files-from");
    reads.add(o_.config_file, "--config");
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
      batch::write_metrics(o_.metrics, run, {code, host_.succeeded(code)}, &dropped);
    } catch (const std::exception& e) {
      log_.error("metrics",
                 std::string(e.what()) + "; the metrics file is not updated (the exit code stays " +
                     std::to_string(code) + ")",
                 {{"file", o_.metrics}, {"exit_code", code}});
    }
    if (!dropped.empty()) log_.warning("metrics", dropped, {{"file", o_.metrics}});
  }

 private:
  const RunRequest& o_;
  const RunHost& host_;
  const batch::Log& log_;
  bool refused_ = false;
};

// The command's own options as config keys (they win over --config and --set), after the checks
// that need no config.
std::vector<std::string> shortcuts_of(const RunRequest& o) {
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

// Each shard its own folder (journal, CSV, summary, lock), so every task of an array runs the same
// command line. An --out that already is the shard's folder (a shard run again by hand) is used as
// it is, not nested in itself.
void place_shard(batch::RunOptions& options, const RunRequest& o, const batch::Log& log) {
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
config::Config prepare_run(const RunRequest& o, const RunHost& host, batch::RunOptions& options,
                           MetricsFile& metrics, const batch::Log& log) {
  metrics.check(o.out.value_or(""), o.model);  // before anything, a failed start's metrics included
  const std::vector<std::string> shortcuts = shortcuts_of(o);
  for (const std::string& input : o.inputs) {
    options.inputs.push_back({input, false});
    options.named.push_back(input);
  }
  io::check_inputs_exist(options.inputs);  // before the OCR notice and the restart below
  config::Config cfg = host.load(shortcuts);
  const bool ocr = cfg.extraction.engine == config::Engine::Ocr;
  if (!ocr && cfg.model.path.empty()) {
    throw ConfigError(
        "run: the vlm engine needs --model DIR (or model.path in the config); without one, "
        "--engine ocr reads pages with Tesseract");
  }
  if (ocr) host.limit_ocr_threads();  // before --files-from - reads standard input, once
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
  options.worker = host.worker;
  return cfg;
}

}  // namespace

int run(const RunRequest& o, const RunHost& host, const batch::Log& log) {
  const auto route_warnings = batch::route_library_warnings(log);
  MetricsFile metrics(o, host, log);
  batch::RunOptions options;
  batch::RunSummary s;
  try {
    const config::Config cfg = prepare_run(o, host, options, metrics, log);
    s = batch::run_batch(cfg, options, log);
  } catch (...) {
    metrics.write(nullptr, host.failure_code(std::current_exception()));
    throw;
  }
  const batch::RunEnding end = batch::end_of_run(s, options, o.allow_empty, host.exit_code);
  for (const batch::EndLine& line : end.lines)
    log.write(line.level, line.event, line.message, line.fields);
  metrics.write(&s, end.exit_code);
  return end.exit_code;
}

}  // namespace docsift::commands
