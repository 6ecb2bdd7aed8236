#include "docsift/batch/run.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "docsift/batch/image_job.h"
#include "docsift/batch/lock.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/worker.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/generate.h"
#include "docsift/io/csv.h"
#include "docsift/io/journal.h"
#include "docsift/io/pages.h"
#include "docsift/io/scan.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// FNV-1a of the effective config: the same config gives the same hash on every platform. Where
// results are written (output.dir) is not part of it: shards of one batch, each in its own
// folder, have one hash, and `docsift merge` checks it.
std::string config_hash(config::Config config) {
  config.output.dir.clear();
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : config::to_yaml(config)) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char out[32];
  std::snprintf(out, sizeof out, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return out;
}

// predictions.csv, one row per successful image in journal order. Rebuilt from the journal when
// the run starts (so it matches after any crash), then appended to as each record is journaled:
// consistent with the journal at every stop, and never rewritten whole per image.
class PredictionsCsv {
 public:
  // Starts the rebuild: the header, into a temporary file; rebuild() adds the journal's records as
  // the journal reads them back, start() puts the file in place and opens it for add().
  PredictionsCsv(const fs::path& path, const extract::FieldSchema& schema) : path_(path) {
    for (const auto& f : schema.fields) fields_.push_back(f.name);
    rebuilding_.emplace(path);
    rebuilding_->write(csv_header(fields_));
  }
  void rebuild(const nlohmann::json& record) { rebuilding_->write(csv_row(record, fields_)); }
  void start() {
    rebuilding_->commit();
    rebuilding_.reset();
    append_.emplace(path_);
  }
  void add(const nlohmann::json& record) { append_->write(csv_row(record, fields_)); }

 private:
  fs::path path_;
  std::vector<std::string> fields_;
  std::optional<io::AtomicFile> rebuilding_;
  std::optional<io::AppendFile> append_;
};

// SIGINT/SIGTERM during a run: the image in flight may finish within kStopGraceSeconds (a second
// signal cuts that short), then the run writes the CSV and summary.json and returns; the caller
// exits with "stopped" and the journal holds every finished image for --resume.
constexpr double kStopGraceSeconds = 3.0;
std::atomic<int> g_stop_signal{0}, g_stop_count{0};
std::atomic<std::int64_t> g_stop_ns{0};

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void on_stop_signal(int sig) {
  if (g_stop_count.fetch_add(1) == 0) {
    g_stop_ns.store(monotonic_ns());
    g_stop_signal.store(sig);
  }
}

// Installs the stop handlers for one run and restores the old ones. SIGXFSZ is ignored meanwhile,
// so that a file-size limit makes the journal write fail with EFBIG, which is reported and undone,
// instead of killing the process mid-record.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    g_stop_count = 0;
    g_stop_ns = 0;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGXFSZ, &ignore, &old_xfsz_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGXFSZ, &old_xfsz_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const { return g_stop_signal.load() != 0; }
  // The image in flight is abandoned once the grace period is over, or at a second signal.
  bool abandon() const {
    return requested() && (g_stop_count.load() > 1 ||
                           static_cast<double>(monotonic_ns() - g_stop_ns.load()) / 1e9 > kStopGraceSeconds);
  }
  std::string name() const { return g_stop_signal.load() == SIGINT ? "SIGINT" : "SIGTERM"; }

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_xfsz_ {};
};

// A file name as the text log shows it: control characters (an escape sequence in a name must
// not reach the terminal) as \xNN.
std::string printable(const std::string& name) {
  std::string out;
  for (const unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

class Progress {
 public:
  Progress(const RunOptions& o, std::ostream& log, int total) : o_(o), log_(log), total_(total), start_(Clock::now()) {}

  void image_done(int done, const nlohmann::json& record) {
    if (o_.quiet) return;
    const double elapsed = since(start_);
    const double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
    const std::string file = record["file"];
    const std::string status = record["status"];
    if (o_.log_format == LogFormat::kJson) {
      nlohmann::json line = {{"event", "image"}, {"done", done}, {"total", total_}, {"file", file},
                             {"status", status}, {"seconds", record["timings_s"]["total"]}, {"eta_s", eta}};
      if (status == "ok") line["tier"] = record["tier"];
      if (record.contains("error")) line["error"] = record["error"];
      log_ << line.dump() << std::endl;
      return;
    }
    if (o_.progress_bar) {
      constexpr int kWidth = 30;
      const int filled = total_ > 0 ? kWidth * done / total_ : kWidth;
      log_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done << '/' << total_
           << " ETA " << clock_text(eta) << "  " << printable(file.substr(0, 40)) << "\033[K";
      if (status != "ok") log_ << "\n  failed: " << printable(file) << ": " << printable(record.value("error", "")) << '\n';
      log_.flush();
      return;
    }
    log_ << '[' << done << '/' << total_ << "] " << printable(file) << ' ' << status;
    if (status == "ok") {
      log_ << " tier=" << record["tier"].get<std::string>();
    } else {
      log_ << ": " << printable(record.value("error", ""));
    }
    char t[64];
    std::snprintf(t, sizeof t, " %.2fs eta %s", record["timings_s"]["total"].get<double>(), clock_text(eta).c_str());
    log_ << t << std::endl;
  }

  void skipped(const io::SkippedFile& f) {
    if (o_.quiet) return;
    if (o_.log_format == LogFormat::kJson) {
      log_ << nlohmann::json{{"event", "skipped"}, {"file", display_name(f.relative)}, {"reason", display_name(f.reason)}}.dump()
           << std::endl;
    } else {
      log_ << "skipped: " << printable(f.relative) << " (" << printable(f.reason) << ")" << std::endl;
    }
  }

  // A worker event (worker isolation): started, recycled, crashed, timed out.
  void worker(const std::string& event) {
    if (o_.quiet) return;
    if (o_.log_format == LogFormat::kJson) {
      log_ << nlohmann::json{{"event", "worker"}, {"what", event}}.dump() << std::endl;
    } else {
      log_ << (o_.progress_bar ? "\r\033[K" : "") << "worker: " << event << std::endl;
    }
  }

  void finish() {
    if (!o_.quiet && o_.progress_bar && o_.log_format == LogFormat::kText) log_ << '\n';
  }

 private:
  const RunOptions& o_;
  std::ostream& log_;
  int total_;
  Clock::time_point start_;
};

// The run as Prometheus text format: gauges over the whole journal (images by status and tier,
// memory high-water marks) and this run (images, seconds, stopped), worker events when isolated.
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

}  // namespace

RunSummary run_batch(const config::Config& cfg, const RunOptions& o, std::ostream& log) {
  const auto run_start = Clock::now();
  RunSummary summary;
  std::vector<io::SkippedFile> skipped_files;
  std::vector<io::ScannedImage> images = io::scan_images(o.input_dir, o.recursive, &skipped_files);
  summary.scanned_all = static_cast<int>(images.size());
  if (o.shard) {
    const auto other_shard = [&](const std::string& relative) { return shard_of(relative, o.shard->count) != o.shard->index; };
    std::erase_if(images, [&](const io::ScannedImage& image) { return other_shard(image.relative); });
    std::erase_if(skipped_files, [&](const io::SkippedFile& f) { return other_shard(f.relative); });
  }
  summary.scanned = static_cast<int>(images.size());
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw FileError(o.out_dir.string() + ": cannot create the output folder: " + ec.message());
  // Before anything is written: no file docsift writes here may be a link or a non-regular file.
  for (const char* name : {".docsift.lock", "results.jsonl", "predictions.csv", "predictions.csv.tmp", "summary.json",
                           "summary.json.tmp"}) {
    io::refuse_link(o.out_dir / name);
  }
  const OutputLock lock(o.out_dir);
  const StopSignals stop;
  const extract::FieldSchema schema = extract::load_field_schema(cfg.extraction.fields);
  const bool write_csv = std::find(cfg.output.formats.begin(), cfg.output.formats.end(), "csv") != cfg.output.formats.end();
  // The CSV is rebuilt and the totals counted in the one pass that reads the journal back, so the
  // CSV is consistent with it even if the last run died between the two appends.
  std::optional<PredictionsCsv> csv;
  if (write_csv) csv.emplace(o.out_dir / "predictions.csv", schema);
  Totals totals;
  io::Journal journal(o.out_dir / "results.jsonl", o.resume, [&](const nlohmann::json& record) {
    totals.add(record);
    if (csv) csv->rebuild(record);
  });
  if (csv) csv->start();

  // Each file's pages (one for an image): a PDF's count comes from its page tree, without
  // rendering. A file that cannot be opened (damaged, encrypted, too many pages) is one failed
  // record with the reason; the batch goes on.
  struct Page {
    const io::ScannedImage* file;
    int page;
    std::string name;   // "invoice.pdf#page=2", or the file's name when it has one page
    std::string error;  // why the file cannot be read, when it cannot
  };
  const io::PageOptions page_opts = page_options(cfg);
  std::vector<Page> todo;
  for (const auto& image : images) {
    std::vector<Page> pages;
    try {
      const int count = io::page_count(image.path, page_opts);
      for (int p = 0; p < count; ++p) pages.push_back({&image, p, io::page_name(image.relative, p, count), ""});
    } catch (const FileError& e) {
      pages.push_back({&image, 0, image.relative, e.what()});
    }
    summary.pages += static_cast<int>(pages.size());
    for (auto& page : pages) {
      if (journal.finished(record_name(page.name).key())) {
        ++summary.skipped;
      } else if (!o.limit || static_cast<int>(todo.size()) < *o.limit) {
        todo.push_back(std::move(page));
      }
    }
  }

  const std::string hash = config_hash(cfg);
  std::set<std::string> earlier_hashes = totals.config_hashes;
  earlier_hashes.erase(hash);
  if (!earlier_hashes.empty() && !o.allow_config_change) {
    throw ConfigError((o.out_dir / "results.jsonl").string() + ": its records were made with another configuration (" +
                      *earlier_hashes.begin() + ", now " + hash +
                      "); resuming would mix their results. Use the same config and model, another --out, or "
                      "--allow-config-change to mix them knowingly (summary.json then lists every config hash)");
  }
  Progress progress(o, log, static_cast<int>(todo.size()));
  // In process, or (memory.isolate: worker) through a worker process: then this process never
  // touches the device, and the worker's events go to the log.
  std::unique_ptr<ImageJob> job;
  std::unique_ptr<WorkerSupervisor> supervisor;
  if (cfg.memory.isolate == config::Isolation::Worker) {
    supervisor = std::make_unique<WorkerSupervisor>(cfg, o.out_dir.string(),
                                                    [&progress](const std::string& event) { progress.worker(event); });
  } else {
    job = std::make_unique<ImageJob>(cfg);
  }
  const auto abandon = [&stop] { return stop.abandon(); };
  for (const auto& f : skipped_files) progress.skipped(f);
  int done = 0;
  for (const Page& page : todo) {
    if (stop.requested()) {
      summary.stopped = "stopped by " + stop.name();
      break;
    }
    const int index = summary.skipped + done + 1;  // processing order across resumed runs
    const auto start = Clock::now();
    const RecordName name = record_name(page.name);
    ImageJob::Outcome outcome;
    try {
      if (!page.error.empty()) {
        outcome.record = {{"status", "failed"}, {"error", page.error}, {"memory", nlohmann::json::object()},
                          {"timings_s", nlohmann::json::object()}};
      } else if (supervisor) {
        outcome = supervisor->process(page.file->path, page.page, index, abandon, &page != &todo.back());
      } else {
        outcome = job->process(page.file->path, page.page, index, abandon);
      }
    } catch (const generate::Interrupted&) {
      // The grace period ran out: this image is abandoned, unrecorded; --resume redoes it.
      summary.stopped = "stopped by " + stop.name() + "; the image in flight, " + name.file + ", is left for --resume";
      break;
    }
    nlohmann::json record = std::move(outcome.record);
    record["file"] = name.file;
    record["config_hash"] = hash;
    if (name.file_bytes) record["file_bytes"] = *name.file_bytes;
    const bool fatal = outcome.fatal;
    const std::string fatal_error = outcome.fatal_error;
    record["timings_s"]["total"] = since(start);
    try {
      journal.append(record);
    } catch (const io::JournalWriteError& e) {
      // The journal is intact up to its last complete record; stop here, --resume goes on.
      summary.stopped = e.what();
      summary.write_failed = true;
      break;
    }
    totals.add(record);
    if (csv) {
      try {
        csv->add(record);
      } catch (const std::exception& e) {  // the journal has the record; --resume rebuilds the CSV
        summary.stopped = e.what();
        summary.write_failed = true;
        break;
      }
    }
    ++done;
    ++summary.processed;
    if (record["status"] == "ok") {
      ++summary.ok;
    } else {
      ++summary.failed;
    }
    progress.image_done(done, record);
    if (fatal) {
      progress.finish();
      throw FileError(cfg.model.path + ": the model cannot be loaded: " + fatal_error);
    }
  }
  progress.finish();

  // The summary covers the whole journal (this run and the runs it resumed).
  summary.total_ok = totals.ok;
  summary.total_failed = totals.failed;
  summary.tiers = totals.tiers;
  summary.seconds = since(run_start);
  nlohmann::json out = {
      {"images", {{"scanned", summary.scanned}, {"pages", summary.pages}, {"ok", summary.total_ok},
                  {"failed", summary.total_failed},
                  {"this_run", summary.processed}, {"resumed_from_journal", summary.skipped}}},
      {"shard", o.shard ? nlohmann::json{{"index", o.shard->index}, {"count", o.shard->count},
                                         {"scanned_all_shards", summary.scanned_all}}
                        : nlohmann::json(nullptr)},
      {"engine", config::to_string(config::resolved_engine(cfg))},
      {"model", cfg.model.path},
      {"device", supervisor ? supervisor->device() : job->device()},
      {"isolation", supervisor ? nlohmann::json{{"mode", "worker"},
                                                {"workers_started", supervisor->stats().started},
                                                {"recycles", supervisor->stats().recycles},
                                                {"crashes", supervisor->stats().crashes},
                                                {"timeouts", supervisor->stats().timeouts},
                                                {"supervisor_mapped_libcuda", cuda_footprint().driver_library},
                                                {"supervisor_mapped_gpu_devices", cuda_footprint().gpu_devices}}
                               : nlohmann::json{{"mode", "none"}}},
      {"config_hash", hash},
      {"earlier_config_hashes", std::vector<std::string>(earlier_hashes.begin(), earlier_hashes.end())},
      {"skipped_files", [&] {
         nlohmann::json files = nlohmann::json::array();
         for (const auto& f : skipped_files) {
           files.push_back({{"file", display_name(f.relative)}, {"reason", display_name(f.reason)}});
         }
         return files;
       }()},
      {"interrupted", summary.stopped.empty() ? nlohmann::json(nullptr) : nlohmann::json(summary.stopped)},
  };
  totals.describe(out);
  out["throughput"]["wall_seconds_this_run"] = summary.seconds;
  if (!o.metrics_path.empty()) {
    try {
      io::write_file_atomic(o.metrics_path, prometheus_metrics(totals, summary, supervisor ? &supervisor->stats() : nullptr));
    } catch (const std::exception& e) {
      if (summary.stopped.empty()) throw;
      summary.stopped += std::string("; ") + e.what();
    }
  }
  try {
    io::write_file_atomic(o.out_dir / "summary.json", out.dump(2) + "\n");
  } catch (const std::exception& e) {
    if (summary.stopped.empty()) throw;
    summary.stopped += std::string("; ") + e.what();
  }
  return summary;
}

}  // namespace docsift::batch
