#include "docsift/batch/stop_signals.h"

#include <time.h>

#include <atomic>
#include <cstdint>

namespace docsift::batch {
namespace {

// The grace period the page in flight gets after the first signal.
constexpr double kStopGraceSeconds = 3.0;
std::atomic<int> g_stop_signal{0}, g_stop_count{0};
std::atomic<std::int64_t> g_stop_ns{0};

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void on_stop_signal(int sig) {
  if (g_stop_count.fetch_add(1) == 0) {
    g_stop_ns.store(monotonic_ns());
    g_stop_signal.store(sig);
  }
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  g_stop_count = 0;
  g_stop_ns = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &old_int_);
  ::sigaction(SIGTERM, &action, &old_term_);
  ::sigaction(SIGHUP, &action, &old_hup_);  // a closed terminal or ssh session: stop cleanly too
}

StopSignals::~StopSignals() {
  // Once stopping, the process is on its way out with "stopped" (exit 5): a signal that comes after
  // the run has returned (systemd and `timeout` signal the whole group, often after the process
  // itself) must not kill it with the default action on the way, so the handlers stay.
  if (!stop_requested()) {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
  }
}

bool StopSignals::requested() const { return stop_requested(); }

bool stop_requested() { return g_stop_signal.load() != 0; }

bool StopSignals::abandon() const {
  return requested() &&
         (g_stop_count.load() > 1 ||
          static_cast<double>(monotonic_ns() - g_stop_ns.load()) / 1e9 > kStopGraceSeconds);
}

std::string StopSignals::name() const {
  const int sig = g_stop_signal.load();
  return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

}  // namespace docsift::batch
