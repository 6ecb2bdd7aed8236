// Starting a worker (WorkerSupervisor, supervisor.h): fork and exec with the pipes and the stderr
// file in place, the hello that has it load the model, the wait for its "ready", and new tries
// with backoff when one dies starting without saying why.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "docsift/batch/stop_signals.h"
#include "docsift/batch/supervisor.h"
#include "docsift/batch/supervisor_worker.h"
#include "docsift/batch/worker_protocol.h"
#include "docsift/error.h"
#include "docsift/io/output_file.h"

namespace docsift::batch {
namespace {

using Clock = std::chrono::steady_clock;

// The last `n` non-empty lines of `text`, joined by " | " (one line for an error message).
std::string last_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (std::size_t i = lines.size() > static_cast<std::size_t>(n) ? lines.size() - n : 0;
       i < lines.size(); ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

}  // namespace

// Died while starting, without saying why: worth another try (ensure_ready).
class WorkerDiedStarting : public FileError {
 public:
  using FileError::FileError;
};

bool WorkerSupervisor::start(int index, int attempt) {
  if (stop_requested()) return false;
  io::UniqueFd err(::memfd_create("docsift-worker-stderr", MFD_CLOEXEC));
  int to_worker[2], from_worker[2];
  if (::pipe2(to_worker, O_CLOEXEC) != 0)
    throw FileError(std::string("worker: pipe: ") + std::strerror(errno));
  if (::pipe2(from_worker, O_CLOEXEC) != 0) {
    ::close(to_worker[0]);
    ::close(to_worker[1]);
    throw FileError(std::string("worker: pipe: ") + std::strerror(errno));
  }
  std::vector<char*> argv;
  for (std::string& arg : argv_) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (const int fd : {to_worker[0], to_worker[1], from_worker[0], from_worker[1]}) ::close(fd);
    throw FileError(std::string("worker: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: die with the supervisor (even one killed with -9), leave Ctrl-C to it, and put
    // the pipes on fds 3 and 4 and the stderr file on 2 (via fds above them, in case any of them
    // is 3 or 4 already, as in a process with few files open).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGPIPE, SIG_DFL);
    const int request = ::fcntl(to_worker[0], F_DUPFD_CLOEXEC, 10);
    const int reply = ::fcntl(from_worker[1], F_DUPFD_CLOEXEC, 10);
    const int error = err.valid() ? ::fcntl(err.get(), F_DUPFD_CLOEXEC, 10) : -1;
    if (request < 0 || reply < 0 || ::dup2(request, kWorkerRequestFd) < 0 ||
        ::dup2(reply, kWorkerReplyFd) < 0) {
      ::_exit(126);
    }
    if (error >= 0) ::dup2(error, STDERR_FILENO);
    ::execv(program_.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(to_worker[0]);
  ::close(from_worker[1]);
  worker_ = std::make_unique<Worker>();
  worker_->pid = pid;
  worker_->to = to_worker[1];
  worker_->from = from_worker[0];
  worker_->reader = std::make_unique<LineReader>(worker_->from);
  worker_->err = std::move(err);
  // A stop signal that arrived while forking (after the check above): the child has not been told
  // to load anything yet, so it goes at once and the stop is not delayed by a model load.
  if (stop_requested()) {
    stop(/*gently=*/false);
    return false;
  }
  ++stats_.started;
  // Sent now, so the worker loads the model while the supervisor goes on.
  write_line(worker_->to, encode(HelloMessage{config_yaml_, index, attempt}));
  note_("worker " + std::to_string(pid) + " started");
  return true;
}

void WorkerSupervisor::await_ready(const std::function<bool()>& abandon) {
  std::string line;
  while (!worker_->ready) {
    const auto r = worker_->reader->read(line, 100);
    if (r == LineReader::Result::kTimeout) {
      if (abandon && abandon()) {
        stop(/*gently=*/false);
        throw StopRequested("stopped while the worker was starting");
      }
      continue;
    }
    if (r == LineReader::Result::kEof) {
      int status = 0;
      ::waitpid(worker_->pid, &status, 0);
      const pid_t pid = worker_->pid;
      worker_->pid = -1;
      forward_stderr();
      worker_.reset();
      if (died_in_stop(status)) {
        note_("worker " + std::to_string(pid) + " " + detail::describe_status(status) +
              " while starting, as the run stops");
        throw StopRequested("stopped while the worker was starting");
      }
      throw WorkerDiedStarting("the worker process " + std::to_string(pid) + " " +
                               detail::describe_status(status) + " while starting");
    }
    const std::optional<Message> message = parse_message(line);
    forward_stderr();
    if (message && message->type == "ready") {
      worker_->ready = true;
      device_ = ready_of(*message).device;
    } else if (message && message->type == "error") {
      const StartErrorMessage error = start_error_of(*message);
      stop(/*gently=*/false);
      if (error.config) throw ConfigError(error.message);
      throw FileError(error.message);
    } else {
      stop(/*gently=*/false);
      throw FileError("the worker process spoke another protocol: " + line.substr(0, 200));
    }
  }
}

void WorkerSupervisor::ensure_ready(int index, const std::function<bool()>& abandon) {
  const int tries = 1 + config_.memory.worker.start_retries;
  for (int attempt = 1;; ++attempt) {
    if (!worker_ && !start(index, attempt))
      throw StopRequested("stopped before a worker was started");
    try {
      await_ready(abandon);
      return;
    } catch (const WorkerDiedStarting& e) {
      const std::string tail = last_lines(stderr_tail_, 3);
      const std::string said =
          tail.empty() ? "it wrote nothing to stderr" : "its last stderr: " + tail;
      if (attempt >= tries) {
        throw WorkerStartError(std::string(e.what()) + "; gave up after " + std::to_string(tries) +
                               " tries (memory.worker.start_retries); " + said);
      }
      // Backoff: what killed it (host memory pressure) may pass. 0.5 s, 1 s, 2 s, ...
      const double wait = 0.5 * static_cast<double>(1 << std::min(attempt - 1, 6));
      note_(std::string(e.what()) + "; trying again in " + std::to_string(wait).substr(0, 3) +
            " s (" + std::to_string(attempt + 1) + " of " + std::to_string(tries) + ")");
      const auto until = Clock::now() + std::chrono::duration<double>(wait);
      while (Clock::now() < until) {
        if ((abandon && abandon()) || stop_requested())
          throw StopRequested("stopped while the worker was starting");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
}

}  // namespace docsift::batch
