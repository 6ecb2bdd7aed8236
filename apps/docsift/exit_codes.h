// The exit codes every docsift command uses (README "Exit codes").
#pragma once

namespace docsift::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitSomeFailed = 1;   // a batch finished, some images failed
inline constexpr int kExitUsage = 2;        // bad command line or config
inline constexpr int kExitCannotStart = 3;  // model, device or lock problem: nothing ran
inline constexpr int kExitBelowGate = 4;    // eval below --min-accuracy or regressed
inline constexpr int kExitStopped = 5;      // run stopped mid-batch (signal, failed journal write): --resume

}  // namespace docsift::cli
