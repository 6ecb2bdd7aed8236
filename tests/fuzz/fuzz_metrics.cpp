// libFuzzer target: the previous metrics file read back (batch/report.h, last_success_in_text),
// whose docsift_last_success_timestamp_seconds is carried into the next one. Reading never
// throws; a value it keeps is finite, not negative and not after now (with the clock's slack),
// and one it drops is said in `dropped`.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "docsift/batch/metrics_file.h"
#include "docsift/timestamp.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const auto now =
      docsift::WallClock::time_point(std::chrono::seconds(1'795'000'000));  // 2026-11-18
  std::string dropped;
  const auto value = docsift::batch::last_success_in_text(in, "fuzz/metrics.prom", now, &dropped);
  if (value) {
    if (!std::isfinite(*value) || *value < 0 ||
        *value > docsift::unix_seconds(now) + docsift::batch::kClockSlack || !dropped.empty()) {
      std::abort();
    }
  }
  return 0;
}
