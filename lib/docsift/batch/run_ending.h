// How a finished `run` ends, said once: which outcome it was (apps/ maps it to the exit code) and
// the lines to log (the closing summary, a stop, an unwritten summary.json, no pages found). The
// command line is apps/'s; what the counts mean is the batch's (docs/run.md, "Exit codes").
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/batch/run.h"

namespace docsift::batch {

enum class RunOutcome {
  kComplete,          // every page of the journal succeeded
  kSomeFailed,        // a page failed, or a folder or file of the inputs could not be read
  kStopped,           // stopped before the last page: --resume continues
  kSummaryUnwritten,  // every page journaled, summary.json not written: --resume writes it
  kNoPages,           // the inputs held no pages (without --allow-empty)
};

struct EndLine {  // one line to log
  Log::Level level = Log::Level::kInfo;
  std::string event, message;
  nlohmann::json fields = nlohmann::json::object();
};

struct RunEnding {
  RunOutcome outcome = RunOutcome::kComplete;
  int exit_code = 0;           // exit_code(outcome)
  std::vector<EndLine> lines;  // in the order to log them; their fields carry "exit_code"
};

// `options` as the run was given them; `allow_empty`: --allow-empty; `exit_code`: the command's
// table (apps/), which the lines name. Looks under the folder inputs for pages in subfolders (the
// hint when a run without --recursive found none).
RunEnding end_of_run(const RunSummary& summary, const RunOptions& options, bool allow_empty,
                     const std::function<int(RunOutcome)>& exit_code);

}  // namespace docsift::batch
