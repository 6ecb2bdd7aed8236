// The exit codes every docsift command uses (README "Exit codes"), and the one mapping from a
// library exception to its code and line.
#pragma once

#include <exception>
#include <string>

namespace docsift::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitSomeFailed = 1;   // a batch finished, some images failed
inline constexpr int kExitUsage = 2;        // bad command line or config, or an input that is not there
inline constexpr int kExitCannotStart = 3;  // model, device or lock problem: nothing ran
inline constexpr int kExitBelowGate = 4;    // eval below --min-accuracy or regressed
inline constexpr int kExitStopped = 5;      // run stopped mid-batch (signal, failed journal write): --resume
inline constexpr int kExitNoInput = 6;      // run found no pages in its inputs (unless --allow-empty)

struct Failure {
  int code = kExitCannotStart;
  std::string message;  // one line
};

// What `error` (thrown by a command) means for the user: docsift::ConfigError is usage (2); a
// FileError, LibTorch's errors and anything else could not start (3).
Failure failure_of(const std::exception_ptr& error);

}  // namespace docsift::cli
