#include "docsift/batch/report.h"

#include <time.h>

#include <cstdio>
#include <string>

namespace docsift::batch {

std::string prometheus_metrics(const Totals& totals, const RunSummary& summary, const WorkerStats* workers) {
  std::string text;
  const auto metric = [&](const char* name, const char* help) {
    text += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
  };
  const auto sample = [&](const std::string& name, double value) {
    char v[64];
    std::snprintf(v, sizeof v, "%.17g", value);
    text += name + " " + v + "\n";
  };
  metric("docsift_images", "Images in the output folder's journal, by status.");
  sample("docsift_images{status=\"ok\"}", totals.ok);
  sample("docsift_images{status=\"failed\"}", totals.failed);
  metric("docsift_images_by_tier", "Successful images in the journal by the tier that produced them.");
  for (const auto& [tier, count] : totals.tiers) {
    std::string label;  // the exposition format's escapes for label values
    for (const char c : tier) label += c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : std::string(1, c);
    sample("docsift_images_by_tier{tier=\"" + label + "\"}", count);
  }
  metric("docsift_run_images", "Images this run processed.");
  sample("docsift_run_images", summary.processed);
  metric("docsift_run_seconds", "Wall time of this run in seconds.");
  sample("docsift_run_seconds", summary.seconds);
  metric("docsift_run_stopped", "1 when this run stopped before its last image (signal or write failure).");
  sample("docsift_run_stopped", summary.stopped.empty() ? 0 : 1);
  metric("docsift_model_seconds", "Seconds spent in the model (vision, prefill, decode) over the journal.");
  sample("docsift_model_seconds", totals.model_seconds);
  metric("docsift_generated_tokens", "Tokens generated over the journal.");
  sample("docsift_generated_tokens", static_cast<double>(totals.generated));
  metric("docsift_device_peak_allocated_bytes", "Highest device memory allocated during an image, over the journal.");
  sample("docsift_device_peak_allocated_bytes", totals.high_allocated);
  metric("docsift_host_peak_rss_bytes", "Highest host resident set during an image, over the journal.");
  sample("docsift_host_peak_rss_bytes", totals.high_rss);
  if (workers != nullptr) {
    metric("docsift_worker_events", "Worker isolation events in this run.");
    sample("docsift_worker_events{event=\"started\"}", workers->started);
    sample("docsift_worker_events{event=\"recycle\"}", workers->recycles);
    sample("docsift_worker_events{event=\"crash\"}", workers->crashes);
    sample("docsift_worker_events{event=\"timeout\"}", workers->timeouts);
  }
  metric("docsift_last_run_timestamp_seconds", "When this run ended (Unix time).");
  sample("docsift_last_run_timestamp_seconds", static_cast<double>(::time(nullptr)));
  return text;
}

void write_report(const RunOptions& o, const Summary& summary, const Totals& totals, RunSummary& run,
                  const WorkerStats* workers) {
  if (!o.metrics_path.empty()) {
    try {
      io::write_file_atomic(o.metrics_path, prometheus_metrics(totals, run, workers));
    } catch (const std::exception& e) {
      if (run.stopped.empty()) throw;
      run.stopped += std::string("; ") + e.what();
    }
  }
  try {
    io::write_file_atomic(o.out_dir / "summary.json", summary.to_json().dump(2) + "\n");
  } catch (const std::exception& e) {
    if (run.stopped.empty()) throw;
    run.stopped += std::string("; ") + e.what();
  }
}

}  // namespace docsift::batch
