#include "docsift/batch/supervisor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "docsift/batch/stop_signals.h"
#include "docsift/batch/supervisor_worker.h"
#include "docsift/batch/worker_protocol.h"
#include "docsift/error.h"

namespace docsift::batch {
namespace {

using Clock = std::chrono::steady_clock;

PageOutcome failed(const std::string& error) {
  PageOutcome out;
  out.record = Record::failure(error);
  return out;
}

// The record in a worker's reply line; none when the line is not a well-formed record message.
std::optional<RecordReply> record_reply_in(const std::string& line) {
  const std::optional<Message> message = parse_message(line);
  std::optional<RecordReply> reply;
  try {
    if (message && message->type == "record") reply = record_reply_of(*message);
  } catch (const std::exception&) {
  }
  return reply;
}

// The page's outcome as worker `pid` replied it (the record moved out), marked with its attempt and
// crashes.
PageOutcome outcome_of(RecordReply& reply, pid_t pid, int attempt,
                       const std::vector<std::string>& crashes) {
  PageOutcome out;
  out.record = std::move(reply.record);
  out.fatal = reply.fatal;
  out.fatal_error = reply.fatal_error;
  out.record.worker = {{"pid", pid}, {"attempt", attempt}};
  if (!crashes.empty()) out.record.worker["crashes"] = crashes;
  return out;
}

// Why a worker `images` images old, holding `in_use` bytes, is recycled (memory.worker.recycle_*);
// "" if not.
std::string recycle_reason(const config::WorkerConfig& wc, int images, std::uint64_t in_use) {
  if (wc.recycle_after_images > 0 && images >= wc.recycle_after_images) {
    return "after " + std::to_string(images) + " images (memory.worker.recycle_after_images)";
  }
  if (wc.recycle_above_mb > 0 && in_use > static_cast<std::uint64_t>(wc.recycle_above_mb) << 20) {
    return "holding " + std::to_string(in_use >> 20) + " MB (memory.worker.recycle_above_mb " +
           std::to_string(wc.recycle_above_mb) + ")";
  }
  return "";
}

}  // namespace

namespace detail {

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "killed by signal " + std::to_string(sig) +
           (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped (status " + std::to_string(status) + ")";
}

}  // namespace detail

WorkerSupervisor::WorkerSupervisor(const config::Config& config, WorkerCommand command,
                                   std::string tag, std::function<void(const std::string&)> note)
    : config_(config), config_yaml_(config::to_yaml(config)), note_(std::move(note)) {
  if (command.program.empty() || command.args.empty()) {
    throw ConfigError(
        "memory.isolate: worker needs the worker's command line, which this program did not give");
  }
  // argv, built once: the child between fork and exec may only call what is async-signal-safe.
  argv_ = std::move(command.args);
  argv_.push_back(std::move(tag));
  program_ = std::move(command.program);
  // A worker whose pipe closes while we write must not kill the supervisor with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerSupervisor::~WorkerSupervisor() { stop(/*gently=*/true); }

bool WorkerSupervisor::died_in_stop(int status) {
  if (stop_requested()) return true;
  if (!WIFSIGNALED(status)) return false;
  const int sig = WTERMSIG(status);
  if (sig != SIGTERM && sig != SIGHUP && sig != SIGINT)
    return false;  // a crash, the OOM killer's SIGKILL
  // SIGTERM or SIGHUP to the whole group (systemd, `timeout`, an ssh hang-up) may reach the worker
  // and have it reaped before our own handler has run: give it a moment. A worker stopped alone
  // (no signal here within the second) is replaced, as a crash is.
  const auto until = Clock::now() + std::chrono::seconds(1);
  while (Clock::now() < until) {
    if (stop_requested()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return stop_requested();
}

void WorkerSupervisor::forward_stderr() {
  if (!worker_ || !worker_->err.valid()) return;
  char chunk[4096];
  while (true) {
    const ssize_t n = ::pread(worker_->err.get(), chunk, sizeof chunk, worker_->err_read);
    if (n <= 0) break;
    worker_->err_read += n;
    std::size_t done = 0;
    while (done <
           static_cast<std::size_t>(n)) {  // ours: the run's log, where the worker's went before
      const ssize_t w = ::write(STDERR_FILENO, chunk + done, static_cast<std::size_t>(n) - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    stderr_tail_.append(chunk, static_cast<std::size_t>(n));
    if (stderr_tail_.size() > 2048) stderr_tail_.erase(0, stderr_tail_.size() - 2048);
  }
}

void WorkerSupervisor::stop(bool gently) {
  if (!worker_) return;
  const pid_t pid = worker_->pid;
  if (gently) write_line(worker_->to, encode_exit());
  ::close(worker_->to);
  worker_->to = -1;
  int status = 0;
  // A worker that was asked to exit gets a few seconds (it may be finishing a cleanup); then
  // SIGTERM, then SIGKILL.
  const auto wait_for = [&](double seconds) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (true) {
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno == ECHILD)) return true;
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  if (!gently || !wait_for(10.0)) {
    ::kill(pid, SIGTERM);
    if (!wait_for(2.0)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
  }
  forward_stderr();
  worker_.reset();
}

PageOutcome WorkerSupervisor::read(const PageRequest& request) {
  const int index = request.index;
  const std::function<bool()>& abandon = request.interrupt;
  const bool more = request.more;
  std::vector<std::string> crashes;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    ensure_ready(index, abandon);
    Worker& w = *worker_;
    const pid_t pid = w.pid;
    write_line(w.to, encode(ImageRequest{request.path.string(), request.real.string(), request.page,
                                         index, attempt}));  // a dead worker shows as EOF below
    const auto deadline = Clock::now() + std::chrono::seconds(config_.memory.worker.timeout_s);
    std::string line;
    while (true) {
      const auto r = w.reader->read(line, 100);
      if (r == LineReader::Result::kLine) {
        forward_stderr();
        std::optional<RecordReply> reply = record_reply_in(line);
        if (!reply) {
          stop(/*gently=*/false);
          crashes.push_back("spoke another protocol");
          break;
        }
        PageOutcome out = outcome_of(*reply, pid, attempt, crashes);
        ++w.images;
        // Recycle before memory creeps: by count, or by what the worker holds; the replacement
        // starts (and loads) at once, while the supervisor journals this image.
        const std::string why =
            recycle_reason(config_.memory.worker, w.images, reply->memory_in_use);
        if (!why.empty() && more) {
          stop(/*gently=*/true);
          ++stats_.recycles;
          note_("worker " + std::to_string(pid) + " recycled " + why);
          out.record.worker["recycled"] = true;
          start(index + 1, 1);  // none when the run is stopping
        }
        return out;
      }
      if (r == LineReader::Result::kEof) {  // crashed: a signal, an abort, an unexpected exit
        int status = 0;
        ::waitpid(pid, &status, 0);
        w.pid = -1;
        forward_stderr();
        worker_.reset();
        if (died_in_stop(status)) {
          // Not a crash: the stop reached the worker (a signal to the process group). The page is
          // left unjournaled for --resume, and no worker replaces this one.
          note_("worker " + std::to_string(pid) + " " + detail::describe_status(status) +
                " on image " + std::to_string(index) +
                " as the run stops; the image is left for --resume");
          throw StopRequested("the worker was stopped with the run");
        }
        ++stats_.crashes;
        crashes.push_back(detail::describe_status(status));
        note_("worker " + std::to_string(pid) + " " + crashes.back() + " on image " +
              std::to_string(index) + (attempt == 1 ? "; retrying in a fresh worker" : ""));
        break;
      }
      if (abandon && abandon()) {
        stop(/*gently=*/false);
        throw StopRequested("stopped while the worker was processing an image");
      }
      if (Clock::now() >= deadline) {
        stop(/*gently=*/false);
        ++stats_.timeouts;
        note_("worker " + std::to_string(pid) + " timed out on image " + std::to_string(index) +
              "; killed");
        PageOutcome out =
            failed("timed out after " + std::to_string(config_.memory.worker.timeout_s) +
                   " s (memory.worker.timeout_s); the worker was killed");
        out.record.worker = {{"pid", pid}, {"attempt", attempt}, {"timed_out", true}};
        if (more) start(index + 1, 1);
        return out;
      }
    }
  }
  PageOutcome out = failed("the worker crashed on this image twice: " + crashes.back());
  out.record.worker = {{"crashes", crashes}};
  if (more) start(index + 1, 1);
  return out;
}

}  // namespace docsift::batch
