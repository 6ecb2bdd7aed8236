// Calendar time for what people and log shippers read: records, events, summary.json, metrics.
// RFC 3339 in UTC with milliseconds ("2026-11-25T02:00:03.141Z"), which sorts as text in time
// order. Durations use stopwatch.h's monotonic clock instead.
#pragma once

#include <chrono>
#include <string>

namespace docsift {

using WallClock = std::chrono::system_clock;

std::string rfc3339_utc(WallClock::time_point t);
inline std::string rfc3339_now() { return rfc3339_utc(WallClock::now()); }
// Seconds since the Unix epoch, as Prometheus timestamps are written.
double unix_seconds(WallClock::time_point t);

}  // namespace docsift
