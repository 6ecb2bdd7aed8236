#include "docsift/batch/metrics_file.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

namespace docsift::batch {
namespace {

constexpr const char* kLastSuccess = "docsift_last_success_timestamp_seconds";

}  // namespace

std::optional<double> last_success_in_text(std::istream& in, const std::string& label,
                                           WallClock::time_point now, std::string* dropped) {
  std::string line;
  const std::string prefix = std::string(kLastSuccess) + " ";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string text = line.substr(prefix.size());
    const char* start = text.c_str();
    char* end = nullptr;
    const double value = std::strtod(start, &end);
    std::string problem;
    if (end == start ||
        std::string_view(end).find_first_not_of(" \t\r") != std::string_view::npos) {
      problem = "not a number";
    } else if (!std::isfinite(value)) {
      problem = "not a finite number";
    } else if (value < 0) {
      problem = "negative";
    } else if (value > unix_seconds(now) + kClockSlack) {
      problem = "in the future (now " + rfc3339_utc(now) + ")";
    }
    if (problem.empty()) return value;
    if (dropped != nullptr) {
      *dropped = label + ": its " + kLastSuccess + " \"" + text + "\" is " + problem +
                 ", so it is not carried over (0 is written: no success known)";
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace docsift::batch
