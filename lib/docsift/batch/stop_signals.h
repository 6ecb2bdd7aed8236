// SIGINT, SIGTERM or SIGHUP during a run: the page in flight may finish within a grace period (a
// second signal cuts that short), then the run writes its outputs and returns; the caller exits
// with "stopped" and the journal holds every finished page for --resume (docs/run.md).
#pragma once

#include <signal.h>

#include <string>

namespace docsift::batch {

// Installs the stop handlers for one run and restores the old ones, unless the run was stopped (a
// late signal must not kill the process on its way to exit 5). SIGXFSZ is the program's, ignored
// for every command in main(), so that a file-size limit makes a write fail with EFBIG.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const;
  // The page in flight is abandoned once the grace period is over, or at a second signal.
  bool abandon() const;
  std::string name() const;  // "SIGINT", "SIGTERM" or "SIGHUP"

 private:
  struct sigaction old_int_ {
  }, old_term_{}, old_hup_{};
};

// Whether the run in this process has had a stop signal (StopSignals::requested() without the
// object): the worker supervisor asks it before it starts a worker and when one dies, since once
// the run is stopping no worker may start and a worker's death is not a crash.
bool stop_requested();

}  // namespace docsift::batch
