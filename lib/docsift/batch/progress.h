// What the run tells its log as it goes: a line (or a JSON event) per page, skipped files and
// worker events; with a terminal, one redrawn progress line instead.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "docsift/batch/record.h"
#include "docsift/batch/run.h"
#include "docsift/io/scan.h"

namespace docsift::batch {

class Progress {
 public:
  Progress(const RunOptions& o, std::ostream& log, int total);
  // `done` pages of this run's total, `record` the last.
  void image_done(int done, const Record& record);
  void skipped(const io::SkippedFile& f);
  // A worker event (worker isolation): started, recycled, crashed, timed out.
  void worker(const std::string& event);
  void finish();

 private:
  const RunOptions& o_;
  std::ostream& log_;
  int total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace docsift::batch
