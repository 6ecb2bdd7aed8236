// `docsift run` behind the command line (docs/run.md): apps/ parses the options into a RunRequest
// and calls `run`, which checks what a run checks before its first page (the inputs, the --metrics
// path, the engine and its model), reads every page (batch::run_batch), logs how the run ended and
// writes the metrics file however it ends, a run that could not start included.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/batch/run.h"
#include "docsift/batch/run_ending.h"
#include "docsift/config/config.h"

namespace docsift::commands {

// What run was asked, as the command line gives it (docs/cli.md lists the options).
struct RunRequest {
  std::vector<std::string> inputs;  // INPUT...
  std::string model, device, isolate, metrics, shard, engine, files_from;
  std::string config_file;  // --config, or "": a file the run reads, never the metrics file
  std::optional<int> shards;
  std::optional<std::string> out;  // set but empty is an error, not the default folder
  std::optional<int> limit;
  bool resume = false, retry_failed = false, resume_by_name = false, recursive = false,
       allow_config_change = false, allow_empty = false, nul = false, follow_links = false;
};

// What a run needs of the program that starts it: its config loaded with the run's shortcuts
// (--config and --set, resolved by what the build has), an OCR run's threads limited before
// anything is read (the program may start itself again), the worker's command line, and the exit
// codes of the command's table (apps/docsift/exit_codes.h), which the closing lines and the
// metrics file name.
struct RunHost {
  std::function<config::Config(const std::vector<std::string>&)> load;
  std::function<void()> limit_ocr_threads;
  batch::WorkerCommand worker;
  std::function<int(batch::RunOutcome)> exit_code;
  std::function<int(const std::exception_ptr&)> failure_code;
  std::function<bool(int)> succeeded;  // the metrics' last success: a code that counts as one
};

// Runs the request and returns its exit code (host.exit_code's). A run that cannot start throws
// (docsift/error.h), after writing the metrics file with host.failure_code's code.
int run(const RunRequest& request, const RunHost& host, const batch::Log& log);

}  // namespace docsift::commands
