// The end of a run: summary.json and, with --metrics, the Prometheus text file, both written
// atomically. The summary covers the whole journal (this run and the runs it resumed); the
// metrics file is written for every run that parsed its command line, also one that could not
// start, so that "no success for two days" can be alerted on (docs/run.md, "Metrics").
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "docsift/batch/metrics_file.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/record.h"
#include "docsift/batch/run.h"
#include "docsift/timestamp.h"

namespace docsift::batch {

// How a run ended, for the metrics: its exit code (apps/docsift/exit_codes.h) and whether it
// counts as a success (it went through its batch: every page it found has a record).
struct RunEnd {
  int exit_code = 0;
  bool success = false;
  WallClock::time_point at = WallClock::now();
};

// The run as Prometheus text format: gauges over the whole journal (images by status and tier,
// memory high-water marks) and this run (images, seconds, stopped, worker events), when it
// started (`run` set); and always the exit code, when it ended, and the last success: this run's
// end, or else `previous_success` (from the file it replaces), or else 0 (none known).
std::string prometheus_metrics(const RunSummary* run, const RunEnd& end,
                               std::optional<double> previous_success);

// The docsift_last_success_timestamp_seconds of a metrics file docsift wrote, as of `now`; nullopt
// when the file, or the gauge, is not there, or when its value is not a time a run can have
// ended at: not a number, not finite (1e999, nan), negative, or after `now` (more than
// kClockSlack: a clock stepped back a little is not a fault). Such a value is dropped, and
// `*dropped` says which and why, for a warning: carried over, it would silence the alert on
// "no success for two days" forever.
std::optional<double> last_success_in(const std::filesystem::path& metrics_file,
                                      WallClock::time_point now, std::string* dropped = nullptr);

// Writes the metrics file atomically, keeping the last success of the one it replaces (when it is
// valid; see last_success_in); without one, the gauge is 0, "no success known", on which the
// alert fires. `*dropped` as for last_success_in. Throws docsift::FileError.
void write_metrics(const std::filesystem::path& path, const RunSummary* run, const RunEnd& end,
                   std::string* dropped = nullptr);

// Writes summary.json. A write that fails is never thrown: after the run stopped it is added to
// `run.stopped`, else it is `run.summary_error` (the run went through its pages and exits 5).
void write_summary(const OutputFolder& folder, const Summary& summary, RunSummary& run);

}  // namespace docsift::batch
