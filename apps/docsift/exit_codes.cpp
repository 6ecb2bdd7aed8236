#include "exit_codes.h"

#if DOCSIFT_WITH_TORCH
#include <c10/util/Exception.h>
#endif

#include "docsift/error.h"

namespace docsift::cli {
#if DOCSIFT_WITH_TORCH
namespace {

// c10::Error::what() appends a C++ backtrace; the first line is the message.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace
#endif

std::string exit_code_table_markdown() {
  std::string out = "| code | commands | meaning |\n|---|---|---|\n";
  for (const ExitCodeRow& row : kExitCodes) {
    out += "| " + std::to_string(row.code) + " | " + std::string(row.commands) + " | " +
           std::string(row.meaning) + " |\n";
  }
  return out;
}

bool returns(const ExitCodeRow& row, std::string_view command) {
  if (command.empty()) return true;
  std::string_view rest = row.commands;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    if (name == command) return true;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return false;
}

std::string exit_code_footer(std::string_view command) {
  std::string out = "Exit codes:";
  bool first = true;
  for (const ExitCodeRow& row : kExitCodes) {
    if (!returns(row, command)) continue;
    out +=
        std::string(first ? " " : "; ") + std::to_string(row.code) + " " + std::string(row.brief);
    first = false;
  }
  return out + " (`docsift --exit-codes` prints the table).";
}

Failure failure_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const docsift::StopRequested& e) {
    // A stop that reached the command (`run` ends its loop on one itself): stopped, as a signal
    // stops a run, never "could not start" (README, "Exit codes": 5).
    return {kExitStopped, e.what()};
  } catch (const docsift::ConfigError& e) {
    return {kExitUsage, e.what()};
  } catch (const docsift::OutputWriteError& e) {
    return {kExitStopped, e.what()};
  } catch (const docsift::MalformedInputError& e) {
    return {kExitMalformed, e.what()};
  } catch (const docsift::FileError& e) {
    return {kExitCannotStart, e.what()};
#if DOCSIFT_WITH_TORCH
  } catch (const c10::Error& e) {
    return {kExitCannotStart, "LibTorch: " + first_line(e.what())};
#endif
  } catch (const std::exception& e) {
    return {kExitCannotStart, std::string("unexpected: ") + e.what()};
  } catch (...) {
    return {kExitCannotStart, "unexpected: an exception that is not a std::exception"};
  }
}

}  // namespace docsift::cli
