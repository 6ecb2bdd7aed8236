// The previous metrics file read back (batch/report.h writes it): the last success it carries.
// Apart from report.h so that it builds without the run's headers (the fuzz build reads it too).
#pragma once

#include <istream>
#include <optional>
#include <string>

#include "docsift/timestamp.h"

namespace docsift::batch {

inline constexpr double kClockSlack = 300;  // seconds

// The docsift_last_success_timestamp_seconds of a metrics file's text, as of `now`: see
// last_success_in (report.h). `label` (the file's path) starts the `*dropped` line. Never throws.
std::optional<double> last_success_in_text(std::istream& in, const std::string& label,
                                           WallClock::time_point now,
                                           std::string* dropped = nullptr);

}  // namespace docsift::batch
