// `docsift run DIR`: the main job. Maps the batch result to exit codes: 0 every image succeeded,
// 1 some failed (each has a record in results.jsonl); run-level failures throw (2 or 3).
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "config_options.h"
#include "docsift/batch/device_setup.h"
#include "docsift/batch/run.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/memory/allocator_env.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_run_command(CLI::App& root) {
  struct Options {
    std::string dir, model, device, isolate, metrics, shard, engine, log_format = "text";
    std::optional<int> shards;
    std::optional<std::string> out;  // set but empty is an error, not the default folder
    ConfigOptions config;
    std::optional<int> limit;
    bool resume = false, recursive = false, quiet = false, allow_config_change = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("run", "Extract fields from every image in a folder (the main job)");
  app->add_option("DIR", o->dir, "Folder of documents: images (jpg, jpeg, png, tif, tiff, webp, bmp) and PDFs; each page is a record")->required();
  o->config.add_to(app);
  app->add_option("--model", o->model, "Model folder (default: model.path from the config)");
  app->add_option("--out", o->out, "Output folder for results.jsonl, predictions.csv, summary.json (default: output.dir)");
  app->add_flag("--resume", o->resume, "Continue the run in --out: skip every image its journal already has");
  app->add_flag("--allow-config-change", o->allow_config_change,
                "With --resume: continue a journal written with another config or model (recorded in summary.json)");
  app->add_flag("--recursive,-r", o->recursive, "Also process images in subfolders");
  app->add_option("--limit", o->limit, "Process at most N images in this run")->check(CLI::PositiveNumber);
  app->add_option("--engine", o->engine,
                  "ocr (Tesseract and field rules, no weights), vlm (the model in --model) or auto: vlm when a "
                  "model is given, else ocr (default: config extraction.engine)")
      ->check(CLI::IsMember({"auto", "ocr", "vlm"}));
  app->add_option("--device", o->device, "cpu, cuda or cuda:N (default: config model.device)");
  app->add_option("--isolate", o->isolate,
                  "none, or worker: the model runs in a worker process that is recycled, and replaced when it "
                  "crashes or hangs (default: config memory.isolate)")
      ->check(CLI::IsMember({"none", "worker"}));
  app->add_option("--metrics", o->metrics,
                  "Write Prometheus text-format metrics here at the end of the run (node_exporter's textfile "
                  "collector): images by status and tier, seconds, peak memory");
  app->add_option("--shard", o->shard,
                  "K/N: process only shard K of N (1-based; by a hash of each file's path, so adding files never "
                  "moves the others), into OUT/shard-K-of-N. auto: from a Slurm job array (SLURM_ARRAY_TASK_ID) or "
                  "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shards). Merge with docsift merge");
  app->add_option("--shards", o->shards, "With --shard auto: the number of shards (a Kubernetes Job's completions)")
      ->check(CLI::Range(1, batch::kMaxShards));
  app->add_flag("--quiet,-q", o->quiet, "No progress output (errors still go to stderr)");
  app->add_option("--log-format", o->log_format, "text or json (one JSON object per image on stderr)")
      ->check(CLI::IsMember({"text", "json"}));
  return {app, [o] {
            std::vector<std::string> overrides;
            if (!o->device.empty()) overrides.push_back("model.device=" + o->device);
            if (!o->model.empty()) overrides.push_back("model.path=" + o->model);
            if (!o->isolate.empty()) overrides.push_back("memory.isolate=" + o->isolate);
            if (!o->engine.empty()) overrides.push_back("extraction.engine=" + o->engine);
            if (o->out) {
              if (o->out->empty()) throw ConfigError("--out: empty; give the output folder (or leave --out out for output.dir)");
              overrides.push_back("output.dir=" + *o->out);
            }
            const config::Config cfg = o->config.load(overrides);
            const bool ocr = config::resolved_engine(cfg) == config::Engine::Ocr;
            if (!ocr && cfg.model.path.empty()) {
              throw ConfigError("run: the vlm engine needs --model DIR (or model.path in the config); without one, "
                                "--engine ocr reads pages with Tesseract");
            }
            if (ocr && std::getenv("OMP_THREAD_LIMIT") == nullptr && g_argv != nullptr) {
              // Tesseract's OpenMP threads spin while they wait: on 2 cores the samples took 60 s
              // with them and 11 s without (docs/bench-history.md, "The OCR engine"). OpenMP reads OMP_THREAD_LIMIT as the
              // program loads, and LibTorch's own OpenMP must keep its threads for the vlm engine,
              // so an OCR run sets it and starts itself again, once, before anything is done.
              ::setenv("OMP_THREAD_LIMIT", "1", 1);
              ::execv("/proc/self/exe", g_argv);  // returns only on failure: go on as we are
            }
            if (ocr && !o->quiet) {
              std::cerr << "docsift: "
                        << (cfg.extraction.engine == config::Engine::Auto ? "no --model given, so " : "")
                        << "reading pages with the OCR engine (Tesseract and the rules in " << cfg.ocr.rules
                        << "); pass --model DIR to use a vision-language model\n";
            }
            batch::RunOptions options;
            options.input_dir = o->dir;
            options.out_dir = cfg.output.dir;
            if (o->shards && o->shard != "auto") throw ConfigError("--shards N goes with --shard auto");
            if (!o->shard.empty()) {
              options.shard = o->shard == "auto" ? batch::shard_from_environment(o->shards, ::getenv)
                                                 : batch::parse_shard(o->shard);
              // Each shard its own folder (journal, CSV, summary, lock), so every task of an array
              // runs the same command line.
              options.out_dir /= options.shard->folder_name();
              if (!o->quiet) {
                std::cerr << "docsift: shard " << options.shard->index << " of " << options.shard->count << " ("
                          << options.shard->source << "), writing to " << options.out_dir.string() << '\n';
              }
            }
            if (cfg.memory.isolate == config::Isolation::Worker) {
              // The supervisor never touches the device: the worker sets it up. Allocator settings
              // are environment variables, which the worker inherits; their warnings are said once.
              for (const std::string& warning : memory::apply_allocator_settings(cfg.memory.allocator)) {
                if (!o->quiet) std::cerr << "docsift: warning: " << warning << '\n';
              }
            } else if (!ocr) {
              (void)batch::start_device(cfg, o->quiet);
            }
            options.recursive = o->recursive;
            options.resume = o->resume;
            options.allow_config_change = o->allow_config_change;
            options.limit = o->limit;
            options.metrics_path = o->metrics;
            options.quiet = o->quiet;
            options.log_format = o->log_format == "json" ? batch::LogFormat::kJson : batch::LogFormat::kText;
            options.progress_bar = ::isatty(STDERR_FILENO) != 0;
            const batch::RunSummary s = batch::run_batch(cfg, options, std::cerr);
            if (!s.stopped.empty()) {  // said even with --quiet: the run is not complete
              std::cerr << "docsift: " << s.stopped << "; " << s.processed << " processed (" << s.ok << " ok, " << s.failed
                        << " failed) and journaled in "
                        << (options.out_dir / "results.jsonl").string()
                        << "; continue with the same command plus --resume\n";
              return kExitStopped;
            }
            if (!o->quiet) {
              std::cerr << "docsift: " << s.processed << " processed (" << s.ok << " ok, " << s.failed << " failed), "
                        << s.skipped << " already done; " << (options.out_dir / "results.jsonl").string()
                        << '\n';
            }
            return s.total_failed > 0 ? kExitSomeFailed : kExitOk;
          }};
}

}  // namespace docsift::cli
