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
#include "docsift/batch/ocr_reader.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/report.h"
#include "docsift/batch/run.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/io/file_list.h"
#include "docsift/io/input_file.h"
#include "docsift/io/same_file.h"
#include "docsift/memory/allocator_env.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

// --files-from: the list's entries (io/file_list.h); "-" reads standard input.
std::vector<std::string> read_file_list(const std::string& from, bool nul) {
  std::ifstream file;
  if (from != "-") file = io::open_input(from, "--files-from");
  return io::read_file_list(from == "-" ? std::cin : file, nul, from);
}

// Pages under the folder inputs' subfolders, for the hint when the top levels had none.
std::size_t pages_in_subfolders(const std::vector<io::Input>& inputs) {
  std::vector<io::Input> folders;
  for (const io::Input& input : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input.path, ec)) folders.push_back(input);
  }
  return folders.empty() ? 0 : io::scan_inputs(folders, /*recursive=*/true).size();
}

}  // namespace

Command add_run_command(CLI::App& root) {
  struct Options {
    std::vector<std::string> inputs;
    std::string model, device, isolate, metrics, shard, engine, files_from, log_format = "text";
    std::optional<int> shards;
    std::optional<std::string> out;  // set but empty is an error, not the default folder
    ConfigOptions config;
    std::optional<int> limit;
    bool resume = false, retry_failed = false, resume_by_name = false, recursive = false, quiet = false,
         allow_config_change = false, allow_empty = false, nul = false, follow_links = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("run", "Extract fields from every page of the documents given (the main job)");
  app->add_option("INPUT", o->inputs,
                  "Folders of documents and documents themselves, in any mix: images (jpg, jpeg, png, tif, tiff, webp, "
                  "bmp) and PDFs; each page is a record");
  app->add_option("--files-from", o->files_from,
                  "Also read the documents listed in FILE, one path a line (- for standard input)");
  app->add_flag("-0,--null", o->nul, "With --files-from: the paths are NUL-separated (find -print0)");
  o->config.add_to(app);
  app->add_option("--model", o->model, "Model folder (default: model.path from the config)");
  app->add_option("--out", o->out, "Output folder for results.jsonl, predictions.csv, confidence.csv, review.csv, documents.csv, line_items.csv and summary.json (default: output.dir)");
  CLI::Option* resume = app->add_flag(
      "--resume", o->resume,
      "Continue the run in --out: skip every page its journal already has, unless its file changed since");
  app->add_flag("--retry-failed", o->retry_failed,
                "With --resume: read again the pages whose last record failed; the new record supersedes it")
      ->needs(resume);
  app->add_flag("--resume-by-name", o->resume_by_name,
                "With --resume: skip a page the journal has even if its file changed size or modification time")
      ->needs(resume);
  app->add_flag("--allow-config-change", o->allow_config_change,
                "With --resume: continue a journal written with another config or model (recorded in summary.json)");
  app->add_flag("--allow-empty", o->allow_empty, "Exit 0, not 6, when the inputs hold no pages (an empty inbox is normal)");
  app->add_flag("--recursive,-r", o->recursive, "Also process documents in subfolders of the folders given");
  app->add_flag("--follow-links", o->follow_links,
                "Also read links whose target lies outside the folders given (a --files-from entry: outside its own "
                "folder); without it they are skipped unopened and listed (default: config input.follow_links)");
  app->add_option("--limit", o->limit, "Process at most N pages in this run")->check(at_least(1, /*whole=*/true));
  app->add_option("--engine", o->engine,
                  "ocr (Tesseract and field rules, no weights), vlm (the model in --model) or auto: vlm when a "
                  "model is given, else ocr (default: config extraction.engine)")
      ->check(CLI::IsMember({"auto", "ocr", "vlm"}));
  app->add_option("--device", o->device, "cpu, cuda or cuda:N (default: config model.device); the ocr engine runs on the CPU");
  app->add_option("--isolate", o->isolate,
                  "none, or worker: the model runs in a worker process that is recycled, and replaced when it "
                  "crashes or hangs (default: config memory.isolate)")
      ->check(CLI::IsMember({"none", "worker"}));
  app->add_option("--metrics", o->metrics,
                  "Write Prometheus text-format metrics here when the run ends, also when it cannot start "
                  "(node_exporter's textfile collector): images by status and tier, exit code, last success");
  app->add_option("--shard", o->shard,
                  "K/N: process only shard K of N (1-based; by a hash of each file's path, so adding files never "
                  "moves the others), into OUT/shard-K-of-N. auto: from a Slurm job array (SLURM_ARRAY_TASK_ID) or "
                  "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shards). Merge with docsift merge");
  app->add_option("--shards", o->shards, "With --shard auto: the number of shards (a Kubernetes Job's completions)")
      ->check(CLI::Range(1, batch::kMaxShards));
  app->add_flag("--quiet,-q", o->quiet,
                "No progress output; failed pages, files read again because they changed, failed pages gone, "
                "warnings and errors still go to stderr");
  app->add_option("--log-format", o->log_format,
                  "text, or json: every stderr line a JSON object with time, level and event")
      ->check(CLI::IsMember({"text", "json"}));
  return {app, [o] {
            const batch::Log log(std::cerr, o->log_format == "json" ? batch::LogFormat::kJson : batch::LogFormat::kText,
                                 o->quiet);
            const auto route_warnings = batch::route_library_warnings(log);
            // The metrics file says how every run ended, one that could not start included. Failing
            // to write it is said, and never changes the run's own exit code.
            bool metrics_refused = false;  // the path is one the run reads or writes: never written
            // Refuses (exit 2) a --metrics path that is a file the run reads or one of `out_dir`'s own.
            const auto check_metrics = [&](const std::filesystem::path& out_dir, const std::string& model) {
              if (o->metrics.empty()) return;
              io::ReadFiles reads;
              for (const std::string& input : o->inputs) {
                reads.add(input, "INPUT");
                reads.add_folder(input, "INPUT", /*pages_only=*/true);
              }
              reads.add(o->files_from, "--files-from");
              reads.add(o->config.file(), "--config");
              if (!model.empty()) reads.add_folder(model, "the model folder", /*pages_only=*/false);
              try {
                batch::refuse_to_overwrite(o->metrics, "--metrics", reads, out_dir);
              } catch (const ConfigError&) {
                metrics_refused = true;
                throw;
              }
            };
            const auto write_metrics = [&](const batch::RunSummary* run, int code) {
              if (o->metrics.empty() || metrics_refused) return;
              std::string dropped;
              try {
                batch::write_metrics(o->metrics, run, {code, code == kExitOk || code == kExitSomeFailed}, &dropped);
              } catch (const std::exception& e) {
                log.error("metrics", std::string(e.what()) + "; the metrics file is not updated (the exit code stays " +
                                         std::to_string(code) + ")",
                          {{"file", o->metrics}, {"exit_code", code}});
              }
              if (!dropped.empty()) log.warning("metrics", dropped, {{"file", o->metrics}});
            };
            batch::RunOptions options;
            batch::RunSummary s;
            try {
              check_metrics(o->out.value_or(""), o->model);  // before anything, a failed start's metrics included
              std::vector<std::string> overrides;
              if (!o->device.empty()) overrides.push_back("model.device=" + o->device);
              if (!o->model.empty()) overrides.push_back("model.path=" + o->model);
              if (!o->isolate.empty()) overrides.push_back("memory.isolate=" + o->isolate);
              if (!o->engine.empty()) overrides.push_back("extraction.engine=" + o->engine);
              if (o->out) {
                if (o->out->empty()) throw ConfigError("--out: empty; give the output folder (or leave --out out for output.dir)");
                overrides.push_back("output.dir=" + *o->out);
              }
              if (o->inputs.empty() && o->files_from.empty()) {
                throw ConfigError("run: give the folders or documents to read (or --files-from FILE)");
              }
              if (o->nul && o->files_from.empty()) throw ConfigError("-0/--null goes with --files-from");
              if (o->shards && o->shard != "auto") throw ConfigError("--shards N goes with --shard auto");
              for (const std::string& input : o->inputs) {
                options.inputs.push_back({input, false});
                options.named.push_back(input);
              }
              io::check_inputs_exist(options.inputs);  // before the OCR notice and the restart below
              const config::Config cfg = o->config.load(overrides);
              const bool ocr = config::resolved_engine(cfg) == config::Engine::Ocr;
              if (!ocr && cfg.model.path.empty()) {
                throw ConfigError("run: the vlm engine needs --model DIR (or model.path in the config); without one, "
                                  "--engine ocr reads pages with Tesseract");
              }
              if (ocr && std::getenv("OMP_THREAD_LIMIT") == nullptr && g_argv != nullptr) {
                // Tesseract's OpenMP threads spin while they wait: on 2 cores the samples took 60 s
                // with them and 11 s without (docs/bench-history.md, "The OCR engine"). OpenMP reads
                // OMP_THREAD_LIMIT as the program loads, and LibTorch's own OpenMP must keep its threads
                // for the vlm engine, so an OCR run sets it and starts itself again, once, before
                // anything is done (before --files-from - reads standard input, which it can read once).
                ::setenv("OMP_THREAD_LIMIT", "1", 1);
                ::execv("/proc/self/exe", g_argv);  // returns only on failure: go on as we are
              }
              if (!o->files_from.empty()) {
                for (const std::string& path : read_file_list(o->files_from, o->nul)) options.inputs.push_back({path, true});
                options.named.push_back("--files-from " + o->files_from);
              }
              if (ocr) {
                log.info("engine",
                         std::string(cfg.extraction.engine == config::Engine::Auto ? "no --model given, so " : "") +
                             "reading pages with the OCR engine (" + batch::ocr_readers(cfg) + "; the rules in " +
                             cfg.ocr.rules + "); pass --model DIR to use a vision-language model",
                         {{"engine", "ocr"}});
                if (!o->device.empty() && o->device != "cpu") {
                  log.warning("ignored", "--device " + o->device + " is ignored: the OCR engine runs on the CPU",
                              {{"option", "--device"}});
                }
              }
              options.out_dir = cfg.output.dir;
              if (!o->shard.empty()) {
                options.shard = o->shard == "auto" ? batch::shard_from_environment(o->shards, ::getenv)
                                                   : batch::parse_shard(o->shard);
                // Each shard its own folder (journal, CSV, summary, lock), so every task of an array
                // runs the same command line. An --out that already is the shard's folder (a shard
                // run again by hand) is used as it is, not nested in itself.
                if (options.out_dir.filename() == "") options.out_dir = options.out_dir.parent_path();
                if (options.out_dir.filename() != options.shard->folder_name()) options.out_dir /= options.shard->folder_name();
                log.info("shard",
                         "shard " + std::to_string(options.shard->index) + " of " + std::to_string(options.shard->count) +
                             " (" + options.shard->source + "), writing to " + options.out_dir.string(),
                         {{"index", options.shard->index}, {"count", options.shard->count}});
              }
              check_metrics(options.out_dir, cfg.model.path);
              // Named as missing before any device is asked for (which would fail first on a machine without one).
              if (std::error_code ec; !ocr && !std::filesystem::exists(cfg.model.path, ec)) {
                throw InputMissingError("--model " + cfg.model.path + ": no such folder; pass the model folder that holds "
                                        "config.json and the .safetensors weights");
              }
              if (cfg.memory.isolate == config::Isolation::Worker) {
                // The supervisor never touches the device: the worker sets it up. Allocator settings
                // are environment variables, which the worker inherits; their warnings are said once.
                for (const std::string& warning : memory::apply_allocator_settings(cfg.memory.allocator)) {
                  log.warning("allocator", warning);
                }
              } else if (!ocr) {
                batch::prepare_model_device(cfg, &log);
              }
              options.recursive = o->recursive;
              options.follow_links = o->follow_links || cfg.input.follow_links;
              options.resume = o->resume;
              options.retry_failed = o->retry_failed;
              options.resume_by_name = o->resume_by_name;
              options.allow_config_change = o->allow_config_change;
              options.allow_empty = o->allow_empty;
              options.limit = o->limit;
              options.progress_bar = ::isatty(STDERR_FILENO) != 0;
              options.worker = worker_command();
              s = batch::run_batch(cfg, options, log);
            } catch (...) {
              write_metrics(nullptr, failure_of(std::current_exception()).code);
              throw;
            }

            const std::string journal = (options.out_dir / "results.jsonl").string();
            const nlohmann::json counts = {{"processed", s.processed}, {"ok", s.ok},
                                           {"failed", s.failed},       {"already_done", s.skipped},
                                           {"retried", s.retried},     {"changed", s.changed},
                                           {"gone", s.gone},           {"unreadable", s.unreadable},
                                           {"links_outside", s.links_outside},
                                           {"journal_ok", s.total_ok}, {"journal_failed", s.total_failed},
                                           {"journal", journal},
                                           {"pages_accepted", s.totals.pages_accepted},
                                           {"fields_accepted", s.totals.fields_accepted},
                                           {"fields_to_review", s.totals.fields_to_review}};
            // A folder that could not be read lost its pages as surely as a page that failed.
            int code = s.total_failed > 0 || s.unreadable > 0 ? kExitSomeFailed : kExitOk;
            std::string closing = std::to_string(s.processed) + " processed (" + std::to_string(s.ok) + " ok, " +
                                  std::to_string(s.failed) + " failed), " + std::to_string(s.skipped) + " already done";
            if (s.gone > 0) closing += ", " + std::to_string(s.gone) + " failed gone";
            if (s.unreadable > 0) {
              closing += ", " + std::to_string(s.unreadable) + (s.unreadable == 1 ? " folder or file" : " folders or files") +
                         " unreadable (see above)";
            }
            if (s.links_outside > 0) {
              closing += ", " + std::to_string(s.links_outside) +
                         (s.links_outside == 1 ? " link" : " links") + " out of the inputs skipped (--follow-links reads them)";
            }
            // The review queue over the journal (docs/confidence.md): what a person has left to check.
            const batch::Totals& t = s.totals;
            if (t.pages_with_confidence > 0) {
              closing += "; review: " + std::to_string(t.pages_accepted) + " of " + std::to_string(t.pages_with_confidence) +
                         " pages fully accepted, " + std::to_string(t.fields_accepted) + " fields accepted, " +
                         std::to_string(t.fields_to_review) + " to review (review.csv)";
            }
            closing += "; " + journal;
            if (!s.stopped.empty()) {  // said even with --quiet: the run is not complete
              code = kExitStopped;
              nlohmann::json fields = counts;
              fields["exit_code"] = code;
              log.error("stopped",
                        s.stopped + "; " + std::to_string(s.processed) + " processed (" + std::to_string(s.ok) + " ok, " +
                            std::to_string(s.failed) + " failed) and journaled in " + journal +
                            "; continue with the same command plus --resume",
                        fields);
            } else if (!s.summary_error.empty()) {
              // Every page went through and is journaled; only the summary is missing. Not "could
              // not start" (3): --resume, with nothing left to read, writes it.
              code = kExitStopped;
              log.error("summary_write",
                        s.summary_error + "; every page is journaled in " + journal +
                            ", but summary.json is not written; run the same command plus --resume to write it",
                        {{"exit_code", code}});
            } else if (s.scanned_all == 0 && s.unreadable == 0) {
              // An unmounted share or a scanner that stopped writing looks like a quiet night.
              std::string where;
              for (const std::string& n : options.named) where += (where.empty() ? "" : ", ") + n;
              std::string message = "no pages found in " + where;
              const std::size_t deeper = o->recursive ? 0 : pages_in_subfolders(options.inputs);
              if (deeper > 0) {
                message += "; " + std::to_string(deeper) + " in subfolders, which are read only with -r (--recursive)";
              }
              if (o->allow_empty) {
                log.info("empty", message + " (--allow-empty)", {{"subfolder_pages", deeper}});
              } else {
                code = kExitNoInput;
                log.error("empty", message + "; exit " + std::to_string(code) + ", or pass --allow-empty if that is normal",
                          {{"subfolder_pages", deeper}, {"exit_code", code}});
              }
            }
            if (s.stopped.empty()) {
              nlohmann::json fields = counts;
              fields["exit_code"] = code;
              log.info("summary", closing, fields);
            }
            write_metrics(&s, code);
            return code;
          }};
}

}  // namespace docsift::cli
