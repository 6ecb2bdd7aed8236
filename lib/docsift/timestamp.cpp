#include "docsift/timestamp.h"

#include <time.h>

#include <cstdio>

namespace docsift {

std::string rfc3339_utc(WallClock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  // Floor division, so an instant before 1970 still gets its millisecond right.
  const long long seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  const int millis = static_cast<int>(ms - seconds * 1000);
  const time_t whole = static_cast<time_t>(seconds);
  tm utc{};
  gmtime_r(&whole, &utc);
  char out[64];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return out;
}

double unix_seconds(WallClock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace docsift
