// What the run tells its log as it goes (log.h): a line (or a JSON event) per page, skipped files
// and worker events; with a terminal, one redrawn progress line instead of a line per good page.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/batch/record.h"
#include "docsift/io/scan.h"

namespace docsift::batch {

class Progress {
 public:
  // `bar`: stderr is a terminal (and the log is text): redraw one line.
  Progress(const Log& log, bool bar, int total);
  // `done` pages of this run's total, `record` the last. A failed page is an error line even
  // with --quiet: the cron log must say which file failed and why.
  void image_done(int done, const Record& record);
  // A skipped file is a warning; a folder or file that could not be read, an error.
  void skipped(const io::SkippedFile& f);
  // The subfolders not read without --recursive: one line, counted and named, with the -r hint.
  void not_descended(const std::vector<std::filesystem::path>& folders);
  // A failed page found gone (`marker`, its journal record): said once, with --quiet too.
  void gone(const Record& marker);
  // A worker event (worker isolation): started, recycled, crashed, timed out.
  void worker(const std::string& event);
  void finish();

 private:
  const Log& log_;
  bool bar_;
  int total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace docsift::batch
