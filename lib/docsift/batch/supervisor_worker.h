// The worker process as WorkerSupervisor holds it, shared by supervisor.cpp (images, stopping,
// stderr) and supervisor_start.cpp (starting a worker, waiting for it to be ready). Internal to
// batch/: not part of supervisor.h.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "docsift/batch/supervisor.h"
#include "docsift/batch/worker_protocol.h"
#include "docsift/io/output_file.h"

namespace docsift::batch {

struct WorkerSupervisor::Worker {
  pid_t pid = -1;
  int to = -1, from = -1;  // our ends of the pipes
  std::unique_ptr<LineReader> reader;
  // The worker's stderr: an in-memory file, copied to ours as it grows (forward_stderr).
  io::UniqueFd err;
  off_t err_read = 0;
  bool ready = false;
  int images = 0;  // since it started
  ~Worker() {
    if (to >= 0) ::close(to);
    if (from >= 0) ::close(from);
  }
};

namespace detail {

// How a reaped worker ended, from its waitpid status: "killed by signal 9 (SIGKILL)", "exited
// with status 1".
std::string describe_status(int status);

}  // namespace detail

}  // namespace docsift::batch
