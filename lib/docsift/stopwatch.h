// Elapsed wall time for records and logs: a monotonic clock, never the calendar.
#pragma once

#include <chrono>

namespace docsift {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace docsift
