#include "docsift/batch/report.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "docsift/io/output_file.h"

namespace docsift::batch {
namespace {

constexpr const char* kLastSuccess = "docsift_last_success_timestamp_seconds";

// The text exposition format: a gauge's HELP and TYPE lines, then its samples.
struct Exposition {
  std::string text;
  void metric(const char* name, const char* help) {
    text += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
  }
  void sample(const std::string& name, double value) {
    char v[64];
    std::snprintf(v, sizeof v, "%.17g", value);
    text += name + " " + v + "\n";
  }
};

// The journal's pages by status and the review queue (docs/confidence.md).
void page_metrics(Exposition& x, const Totals& totals) {
  x.metric("docsift_images",
           "Images in the output folder's journal, by the status of each one's latest record.");
  x.sample("docsift_images{status=\"ok\"}", totals.ok);
  x.sample("docsift_images{status=\"failed\"}", totals.failed);
  if (totals.pages_with_confidence > 0) {  // the review queue (docs/confidence.md)
    x.metric("docsift_review_pages",
             "Ok pages in the journal with confidences, by whether every field was accepted "
             "(review.threshold) or some are to be reviewed.");
    x.sample("docsift_review_pages{state=\"accepted\"}", totals.pages_accepted);
    x.sample("docsift_review_pages{state=\"to_review\"}",
             totals.pages_with_confidence - totals.pages_accepted);
    x.metric("docsift_review_fields",
             "Fields with a value in the journal, accepted or to be reviewed.");
    x.sample("docsift_review_fields{state=\"accepted\"}",
             static_cast<double>(totals.fields_accepted));
    x.sample("docsift_review_fields{state=\"to_review\"}",
             static_cast<double>(totals.fields_to_review));
  }
  if (totals.values_compared > 0) {  // pages that agree (batch/agreement.h)
    x.metric("docsift_agreement_values",
             "Values compared across the journal's ok pages (seller, address): read alike by "
             "another page as the page read them, respelled as other pages read them, or alone.");
    x.sample("docsift_agreement_values{state=\"agreed\"}",
             static_cast<double>(totals.values_agreed - totals.values_respelled));
    x.sample("docsift_agreement_values{state=\"respelled\"}",
             static_cast<double>(totals.values_respelled));
    x.sample("docsift_agreement_values{state=\"alone\"}",
             static_cast<double>(totals.values_compared - totals.values_agreed));
  }
}

// This run, the journal's tiers, time, tokens and memory, and the worker events.
void run_metrics(Exposition& x, const RunSummary& run) {
  const Totals& totals = run.totals;
  x.metric("docsift_run_gone_images",
           "Failed pages this run found gone (their file deleted or moved away) and took out of "
           "the failed set; said by this run only.");
  x.sample("docsift_run_gone_images", run.gone);
  x.metric("docsift_run_unreadable",
           "Folders and files in the inputs this run could not read (summary.json skipped_files, "
           "unreadable); the run exits 1.");
  x.sample("docsift_run_unreadable", run.unreadable);
  x.metric("docsift_images_by_tier",
           "Successful images in the journal by the tier that produced them.");
  for (const auto& [tier, count] : totals.tiers) {
    std::string label;  // the exposition format's escapes for label values
    for (const char c : tier)
      label += c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : std::string(1, c);
    x.sample("docsift_images_by_tier{tier=\"" + label + "\"}", count);
  }
  x.metric("docsift_run_images", "Images this run processed.");
  x.sample("docsift_run_images", run.processed);
  x.metric("docsift_run_seconds", "Wall time of this run in seconds.");
  x.sample("docsift_run_seconds", run.seconds);
  x.metric("docsift_run_stopped",
           "1 when this run stopped before its last image (signal or write failure).");
  x.sample("docsift_run_stopped", run.stopped.empty() ? 0 : 1);
  x.metric("docsift_model_seconds",
           "Seconds spent in the model (vision, prefill, decode) over the journal.");
  x.sample("docsift_model_seconds", totals.model_seconds);
  x.metric("docsift_generated_tokens", "Tokens generated over the journal.");
  x.sample("docsift_generated_tokens", static_cast<double>(totals.generated));
  x.metric("docsift_device_peak_allocated_bytes",
           "Highest device memory allocated during an image, over the journal.");
  x.sample("docsift_device_peak_allocated_bytes", totals.high_allocated);
  x.metric("docsift_host_peak_rss_bytes",
           "Highest host resident set during an image, over the journal.");
  x.sample("docsift_host_peak_rss_bytes", totals.high_rss);
  if (run.workers) {
    x.metric("docsift_worker_events", "Worker isolation events in this run.");
    x.sample("docsift_worker_events{event=\"started\"}", run.workers->started);
    x.sample("docsift_worker_events{event=\"recycle\"}", run.workers->recycles);
    x.sample("docsift_worker_events{event=\"crash\"}", run.workers->crashes);
    x.sample("docsift_worker_events{event=\"timeout\"}", run.workers->timeouts);
  }
}

}  // namespace

std::string prometheus_metrics(const RunSummary* run, const RunEnd& end,
                               std::optional<double> previous_success) {
  Exposition x;
  if (run != nullptr) {
    page_metrics(x, run->totals);
    run_metrics(x, *run);
  }
  x.metric("docsift_run_exit_code",
           "The exit code of the last run (0 ok, 1 some pages failed or could not be read, 2 "
           "usage, 3 could not start, 5 stopped or summary.json unwritten, 6 no input pages, 7 a "
           "malformed input file).");
  x.sample("docsift_run_exit_code", end.exit_code);
  x.metric("docsift_last_run_timestamp_seconds", "When the last run ended (Unix time).");
  x.sample("docsift_last_run_timestamp_seconds", unix_seconds(end.at));
  // Always there, 0 when no success is known (none yet, or the earlier value was dropped): an
  // absent gauge, like a carried inf or nan, would keep "time() - last success > 2 days" silent.
  const double success = end.success ? unix_seconds(end.at) : previous_success.value_or(0);
  x.metric(kLastSuccess,
           "When the last run that went through its whole batch ended (exit code 0 or 1; Unix "
           "time); 0 when none is known.");
  x.sample(kLastSuccess, success);
  return x.text;
}

std::optional<double> last_success_in(const std::filesystem::path& metrics_file,
                                      WallClock::time_point now, std::string* dropped) {
  std::ifstream in(metrics_file);
  return last_success_in_text(in, metrics_file.string(), now, dropped);
}

void write_metrics(const std::filesystem::path& path, const RunSummary* run, const RunEnd& end,
                   std::string* dropped) {
  io::write_file_atomic(path, prometheus_metrics(run, end, last_success_in(path, end.at, dropped)));
}

void write_summary(const OutputFolder& folder, const Summary& summary, RunSummary& run) {
  try {
    folder.write_summary(summary);
  } catch (const std::exception& e) {
    if (run.stopped.empty()) {
      run.summary_error = e.what();
    } else {
      run.stopped += std::string("; ") + e.what();
    }
  }
}

}  // namespace docsift::batch
