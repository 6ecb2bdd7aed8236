// Worker isolation (memory.isolate: worker, `docsift run --isolate worker`). The run's own process
// becomes a supervisor that never touches the device: it scans, journals and writes the outputs,
// and hands images one at a time to a long-lived worker process (the command the app gives,
// WorkerCommand: `docsift worker`) that holds the model. The supervisor recycles the worker before
// memory creeps, kills it when an image outlasts memory.worker.timeout_s, and replaces it when it
// crashes (the image is retried once in a fresh worker). What a process gives back only by exiting
// (the CUDA context, memory a library keeps, a wedged driver call) is given back that way.
//
// The messages are worker_protocol.h's; the worker's side is worker_main.h.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "docsift/batch/page_reader.h"
#include "docsift/config/config.h"
#include "docsift/error.h"

namespace docsift::batch {

struct WorkerStats {
  int started = 0, recycles = 0, crashes = 0, timeouts = 0;
};

// A worker that could not be started within memory.worker.start_retries: killed by a signal or
// gone without a word each time (what the OOM killer does under host memory pressure). The run
// stops early and resumable when pages were already journaled (run.cpp).
class WorkerStartError : public FileError {
 public:
  using FileError::FileError;
};

// How a worker process is started: the program to exec and its argv up to the supervisor's tag,
// which follows them. The app fills it in (apps/docsift: its own binary, /proc/self/exe, as
// `docsift worker --for`), so that batch/ names none of the app's subcommands or options; the
// worker answers with run_worker (worker_main.h).
struct WorkerCommand {
  std::string program;            // the executable, as execv takes it
  std::vector<std::string> args;  // argv from argv[0]; the tag is appended
};

class WorkerSupervisor final : public PageReader {
 public:
  // No worker starts until the first image. Each worker runs `command` with `tag` appended, so
  // `ps` shows whose it is; `note` receives one line per worker event (start, recycle, crash,
  // timeout) for the log. Throws ConfigError when `command` names no program.
  WorkerSupervisor(const config::Config& config, WorkerCommand command, std::string tag,
                   std::function<void(const std::string&)> note);
  ~WorkerSupervisor();  // stops and reaps the worker, whatever state it is in
  WorkerSupervisor(const WorkerSupervisor&) = delete;
  WorkerSupervisor& operator=(const WorkerSupervisor&) = delete;

  // The image's record from a worker (starting one when none runs). A crash is retried once in a
  // fresh worker, then recorded as failed with the signal or exit status; a timeout is recorded as
  // failed and the worker killed. Throws docsift::StopRequested once `abandon` turns true (the
  // worker is killed and reaped first); WorkerStartError when no worker could be started within
  // memory.worker.start_retries, and ConfigError / FileError at once when a worker says why it
  // cannot start (a bad model or config: trying again would not help).
  // `more` says whether images follow: a replacement worker starts (and loads the model) at once
  // only then.
  PageOutcome read(const PageRequest& request) override;

  const WorkerStats& stats() const { return stats_; }
  std::string device() const override { return device_; }  // as the worker reported it

 private:
  struct Worker;
  // Starts a worker for page `index` (fault specs' image=); `attempt` counts start tries. Starts
  // none, and returns false, once the run has a stop signal (stop_signals.h): stopping never loads
  // the model again.
  bool start(int index, int attempt);
  // A worker that died at `status` while the run stops: waits briefly for the run's own signal
  // when the worker's death was a stop signal (a signal to the process group may reach the worker
  // first), and says whether the run is stopping.
  static bool died_in_stop(int status);
  // A ready worker for page `index`: the one running, or new ones, tried with backoff.
  void ensure_ready(int index, const std::function<bool()>& abandon);
  // Waits for the worker's "ready"; throws when it fails to start.
  void await_ready(const std::function<bool()>& abandon);
  // Copies what the worker wrote to its stderr since the last call to ours, keeping the tail.
  void forward_stderr();
  // Asks the worker to exit, then SIGTERM, then SIGKILL; always reaps.
  void stop(bool gently);

  config::Config config_;
  std::string config_yaml_;
  std::string program_;            // WorkerCommand::program
  std::vector<std::string> argv_;  // WorkerCommand::args and the tag
  std::function<void(const std::string&)> note_;
  std::unique_ptr<Worker> worker_;
  WorkerStats stats_;
  std::string device_;
  std::string stderr_tail_;  // the last lines a worker wrote to stderr, for error messages
};

}  // namespace docsift::batch
