// The end of a run: summary.json and, with --metrics, the Prometheus text file, both written
// atomically. The summary covers the whole journal (this run and the runs it resumed); the
// metrics file is written for every run that parsed its command line, also one that could not
// start, so that "no success for two days" can be alerted on (docs/run.md, "Metrics").
#pragma once

#include <filesystem>
#include <optional>
#include <string>

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
// end, or else `previous_success` (from the file it replaces).
std::string prometheus_metrics(const RunSummary* run, const RunEnd& end, std::optional<double> previous_success);

// The docsift_last_success_timestamp_seconds of a metrics file docsift wrote; nullopt when the
// file, or the gauge, is not there.
std::optional<double> last_success_in(const std::filesystem::path& metrics_file);

// Writes the metrics file atomically, keeping the last success of the one it replaces. Throws
// docsift::FileError.
void write_metrics(const std::filesystem::path& path, const RunSummary* run, const RunEnd& end);

// Writes summary.json. A write that fails after the run already stopped is added to
// `run.stopped`; otherwise it throws.
void write_summary(const std::filesystem::path& out_dir, const Summary& summary, RunSummary& run);

}  // namespace docsift::batch
