// Each subcommand registers its options on the CLI11 app and returns what to run once parsing
// succeeded. Commands return an exit code; library exceptions propagate to main(), which maps
// them (see exit_codes.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "docsift/batch/log.h"
#include "docsift/batch/supervisor.h"

namespace docsift::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// The command line main() received, for a command that must start docsift again (run, for OCR).
extern char** g_argv;
// --log-format as main() found it on the command line: how errors are written.
extern batch::LogFormat g_log_format;

Command add_inspect_command(CLI::App& root);
Command add_config_command(CLI::App& root);
Command add_tokenize_command(CLI::App& root);
Command add_generate_command(CLI::App& root);
Command add_eval_command(CLI::App& root);
Command add_worker_command(CLI::App& root);
// How `run --isolate worker` starts a worker: this binary again (/proc/self/exe) as
// `docsift worker --for`, the subcommand add_worker_command registers; the run appends its tag.
batch::WorkerCommand worker_command();
Command add_run_command(CLI::App& root);
Command add_merge_command(CLI::App& root);
Command add_report_command(CLI::App& root);
// `docsift review apply`: corrections into a run's journal (batch/corrections.h).
Command add_review_command(CLI::App& root);
int print_version();

}  // namespace docsift::cli
