// docsift's text log lines as the tests read them (lib/docsift/batch/log.h): each starts with its
// time in RFC 3339 UTC with milliseconds, a space, then "docsift: ". Tests match what follows the
// time, so that "docsift: error: " stays what they look for.
#pragma once

#include <regex>
#include <string>

namespace docsift::testing {

// "2026-11-27T04:20:19.123Z ": the time every text log line starts with.
inline const std::regex& log_time_prefix() {
  static const std::regex prefix(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )");
  return prefix;
}

// `line` after its leading time; "" when it does not start with one (a line docsift did not write
// through its log), so that a starts_with check on the result fails.
inline std::string log_body(const std::string& line) {
  std::smatch m;
  if (!std::regex_search(line, m, log_time_prefix())) return "";
  return line.substr(static_cast<std::size_t>(m.length(0)));
}

// Whether `err` is exactly one log line (ended by '\n') whose body starts with `start`.
inline bool one_log_line(const std::string& err, const std::string& start = "docsift: error: ") {
  return err.find('\n') == err.size() - 1 &&
         log_body(err.substr(0, err.size() - 1)).starts_with(start);
}

}  // namespace docsift::testing
