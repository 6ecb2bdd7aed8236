// The end of a run: summary.json and, with --metrics, the Prometheus text file, both written
// atomically and both over the whole journal (this run and the runs it resumed).
#pragma once

#include "docsift/batch/outputs.h"
#include "docsift/batch/record.h"
#include "docsift/batch/run.h"
#include "docsift/batch/supervisor.h"

namespace docsift::batch {

// The run as Prometheus text format: gauges over the whole journal (images by status and tier,
// memory high-water marks) and this run (images, seconds, stopped), worker events when isolated.
std::string prometheus_metrics(const Totals& totals, const RunSummary& summary, const WorkerStats* workers);

// Writes the metrics (when options.metrics_path is set) and summary.json. A write that fails after
// the run already stopped is added to `run.stopped`; otherwise it throws.
void write_report(const RunOptions& options, const Summary& summary, const Totals& totals, RunSummary& run,
                  const WorkerStats* workers);

}  // namespace docsift::batch
