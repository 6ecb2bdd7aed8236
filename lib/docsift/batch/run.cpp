#include "docsift/batch/run.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "docsift/batch/lock.h"
#include "docsift/error.h"
#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/engine.h"
#include "docsift/io/csv.h"
#include "docsift/io/image_file.h"
#include "docsift/io/journal.h"
#include "docsift/io/scan.h"
#include "docsift/memory/cleanup.h"
#include "docsift/memory/devices.h"
#include "docsift/memory/plan.h"
#include "docsift/resilience/ladder.h"
#include "docsift/vision/internvl_tiles.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// FNV-1a of the effective config: the same config gives the same hash on every platform.
std::string config_hash(const config::Config& config) {
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

// predictions.csv in the ground-truth layout: image_file, then one column per field.
std::string predictions_csv(const extract::FieldSchema& schema, const io::Journal& journal) {
  std::ostringstream out;
  out << "image_file";
  for (const auto& f : schema.fields) out << ',' << io::csv_field(f.name);
  out << '\n';
  for (const auto& [file, record] : journal.records()) {
    if (record.value("status", "") != "ok") continue;
    out << io::csv_field(file);
    const auto& fields = record["fields"];
    for (const auto& f : schema.fields) out << ',' << io::csv_field(fields.value(f.name, "N/A"));
    out << '\n';
  }
  return out.str();
}

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
      log_ << nlohmann::json{{"event", "skipped"}, {"file", f.relative}, {"reason", f.reason}}.dump() << std::endl;
    } else {
      log_ << "skipped: " << printable(f.relative) << " (" << printable(f.reason) << ")" << std::endl;
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

}  // namespace

RunSummary run_batch(const config::Config& cfg, const RunOptions& o, std::ostream& log) {
  const auto run_start = Clock::now();
  RunSummary summary;
  std::vector<io::SkippedFile> skipped_files;
  std::vector<io::ScannedImage> images = io::scan_images(o.input_dir, o.recursive, &skipped_files);
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
  io::Journal journal(o.out_dir / "results.jsonl", o.resume);
  const extract::FieldSchema schema = extract::load_field_schema(cfg.extraction.fields);
  const bool write_csv = std::find(cfg.output.formats.begin(), cfg.output.formats.end(), "csv") != cfg.output.formats.end();
  const auto rewrite_csv = [&] {
    if (write_csv) io::write_file_atomic(o.out_dir / "predictions.csv", predictions_csv(schema, journal));
  };
  if (o.resume) rewrite_csv();  // consistent with the journal even if the last run died mid-rewrite

  std::vector<const io::ScannedImage*> todo;
  for (const auto& image : images) {
    if (journal.finished(image.relative)) {
      ++summary.skipped;
    } else if (!o.limit || static_cast<int>(todo.size()) < *o.limit) {
      todo.push_back(&image);
    }
  }

  const std::string hash = config_hash(cfg);
  std::set<std::string> earlier_hashes;
  for (const auto& [file, record] : journal.records()) earlier_hashes.insert(record.value("config_hash", std::string()));
  earlier_hashes.erase(hash);
  if (!earlier_hashes.empty() && !o.allow_config_change) {
    throw ConfigError((o.out_dir / "results.jsonl").string() + ": its records were made with another configuration (" +
                      *earlier_hashes.begin() + ", now " + hash +
                      "); resuming would mix their results. Use the same config and model, another --out, or "
                      "--allow-config-change to mix them knowingly (summary.json then lists every config hash)");
  }
  const c10::Device device = memory::resolve_device(cfg.model.device);
  generate::Engine engine(cfg.model.path);
  resilience::Ladder ladder(engine, resilience::ladder_settings(cfg, device));
  const std::string prompt_text = extract::build_prompt(schema);
  const std::vector<std::string> field_names = schema.names();
  generate::GenerationOptions gen;
  gen.max_new_tokens =
      cfg.generation.max_new_tokens.value_or(extract::auto_max_new_tokens(schema, extract::ModelFamily::kInternVL));
  gen.temperature = cfg.generation.temperature;
  gen.top_p = cfg.generation.top_p;
  gen.seed = cfg.generation.seed;
  gen.greedy = cfg.generation.temperature <= 0.0;
  gen.stop_ids = engine.chat().stop_ids();
  gen.interrupt = [&stop] { return stop.abandon(); };
  const std::uint64_t threshold = static_cast<std::uint64_t>(cfg.memory.fragmentation_threshold_mb) << 20;
  std::optional<std::uint64_t> budget;
  if (device.is_cuda()) {
    if (cfg.memory.budget_gb) {
      budget = static_cast<std::uint64_t>(*cfg.memory.budget_gb * 1073741824.0);
    } else if (const auto d = memory::read_device_memory(device); d.valid) {
      budget = d.driver_free + d.reserved;  // what this process can have
    }
  }

  Progress progress(o, log, static_cast<int>(todo.size()));
  for (const auto& f : skipped_files) progress.skipped(f);
  int done = 0;
  for (const io::ScannedImage* image : todo) {
    if (stop.requested()) {
      summary.stopped = "stopped by " + stop.name();
      break;
    }
    const int index = summary.skipped + done + 1;  // processing order across resumed runs
    const auto start = Clock::now();
    nlohmann::json record = {{"file", image->relative}, {"config_hash", hash}};
    nlohmann::json timings;
    bool fatal = false;
    std::string fatal_error;
    try {
      auto t = Clock::now();
      const at::Tensor rgb = io::read_rgb_image(image->path);
      timings["decode_image"] = since(t);
      t = Clock::now();
      const auto pre = vision::preprocess_internvl(rgb, cfg.model.max_tiles);
      const int tiles = static_cast<int>(pre.pixel_values.size(0));
      const std::vector<int32_t> prompt = engine.chat().encode(prompt_text, tiles);
      timings["preprocess"] = since(t);
      record["image"] = {{"width", rgb.size(1)}, {"height", rgb.size(0)}, {"tiles", tiles}};

      std::optional<config::Tier> start_tier;
      if (budget) {
        memory::PlanRequest r;
        r.model = engine.memory_shape();
        r.dtype_bytes = c10::elementSize(ladder.settings().dtype);
        r.cpu_dtype_bytes = c10::elementSize(ladder.settings().cpu_dtype);
        r.int8 = ladder.settings().quantization == config::Quantization::Int8;
        r.cpu_int8 = ladder.settings().cpu_quantization == config::Quantization::Int8;
        r.tiles = tiles;
        r.prompt_tokens = static_cast<std::int64_t>(prompt.size());
        r.max_new_tokens = gen.max_new_tokens;
        r.tiers = cfg.memory.tiers;
        r.device_budget = budget;
        const memory::MemoryPlan plan = memory::plan_memory(r);
        start_tier = plan.first_fitting();
        for (const auto& tp : plan.tiers) {
          if (tp.tier == *start_tier) record["plan"] = {{"start_tier", config::to_string(tp.tier)}, {"predicted_device_bytes", tp.device_bytes}};
        }
      }
      const resilience::ImageRun run = ladder.run(index, pre.pixel_values, prompt, gen, start_tier);  // may throw Interrupted
      nlohmann::json attempts = nlohmann::json::array();
      for (const auto& a : run.attempts) attempts.push_back(resilience::to_json(a));
      record["attempts"] = attempts;
      if (run.ok) {
        const std::string text = engine.tokenizer().decode(run.result.tokens, /*skip_special_tokens=*/true);
        record["status"] = "ok";
        record["tier"] = config::to_string(run.tier);
        record["fields"] = extract::parse_response(text, field_names);
        record["raw_response"] = text;
        record["tokens"] = {{"prompt", run.result.prompt_tokens}, {"generated", run.result.tokens.size()}};
        // The weights that produced this record, as held (bytes summed over the loaded tensors).
        const auto& model = engine.model();
        record["model"] = {{"dtype", std::string(c10::toString(model.dtype()))},
                           {"quantization", std::string(config::to_string(model.numerics().quantization))},
                           {"weight_bytes", model.parameter_bytes()},
                           {"scratch_bytes", model.scratch_bytes()}};
        timings["vision"] = run.result.vision_seconds;
        timings["prefill"] = run.result.prefill_seconds;
        timings["decode"] = run.result.decode_seconds;
        if (run.peak.valid && record.contains("plan")) record["plan"]["measured_peak_allocated"] = run.peak.peak_allocated;
      } else {
        record["status"] = "failed";
        record["error"] = run.error;
        fatal = run.fatal;
        fatal_error = run.error;
      }
    } catch (const generate::Interrupted&) {
      // The grace period ran out: this image is abandoned, unrecorded; --resume redoes it.
      summary.stopped = "stopped by " + stop.name() + "; the image in flight, " + image->relative + ", is left for --resume";
      break;
    } catch (const std::exception& e) {  // decode and preprocess errors fail this image only
      record["status"] = "failed";
      record["error"] = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    }
    if (cfg.memory.cleanup == config::Cleanup::AfterImage) {
      record["memory"] = memory::to_json(memory::cleanup(device, threshold));
    } else {
      record["memory"] = {{"after", memory::to_json(memory::read_memory(device))}};
    }
    timings["total"] = since(start);
    record["timings_s"] = timings;
    try {
      journal.append(record);
    } catch (const io::JournalWriteError& e) {
      // The journal is intact up to its last complete record; stop here, --resume goes on.
      summary.stopped = e.what();
      summary.write_failed = true;
      break;
    }
    ++done;
    ++summary.processed;
    if (record["status"] == "ok") {
      ++summary.ok;
    } else {
      ++summary.failed;
    }
    if (done <= 200 || done % 50 == 0 || done == static_cast<int>(todo.size())) rewrite_csv();
    progress.image_done(done, record);
    if (fatal) {
      progress.finish();
      throw FileError(cfg.model.path + ": the model cannot be loaded: " + fatal_error);
    }
  }
  progress.finish();
  // The CSV matches the journal at every end, a stop included. After a failed journal write the disk
  // may be full: what cannot be written now is rebuilt by --resume.
  try {
    rewrite_csv();
  } catch (const std::exception& e) {
    if (summary.stopped.empty()) throw;
    summary.stopped += std::string("; ") + e.what();
  }

  // The summary covers the whole journal (this run and the runs it resumed).
  nlohmann::json tiers = nlohmann::json::object();
  double high_allocated = 0, high_rss = 0, model_seconds = 0, total_seconds = 0;
  std::int64_t generated = 0;
  for (const auto& [file, record] : journal.records()) {
    if (record.value("status", "") == "ok") {
      ++summary.total_ok;
      const std::string tier = record["tier"];
      ++summary.tiers[tier];
      generated += record["tokens"]["generated"].get<std::int64_t>();
      const auto& t = record["timings_s"];
      model_seconds += t.value("vision", 0.0) + t.value("prefill", 0.0) + t.value("decode", 0.0);
    } else {
      ++summary.total_failed;
    }
    total_seconds += record["timings_s"].value("total", 0.0);
    const auto& m = record["memory"];
    const auto& before = m.contains("before") ? m["before"] : m["after"];
    high_rss = std::max(high_rss, before.value("host_peak_rss", 0.0));
    if (before.contains("device") && before["device"].is_object()) {
      high_allocated = std::max(high_allocated, before["device"].value("peak_allocated", 0.0));
    }
  }
  for (const auto& [tier, count] : summary.tiers) tiers[tier] = count;
  summary.seconds = since(run_start);
  const nlohmann::json out = {
      {"images", {{"scanned", summary.scanned}, {"ok", summary.total_ok}, {"failed", summary.total_failed},
                  {"this_run", summary.processed}, {"resumed_from_journal", summary.skipped}}},
      {"tiers", tiers},
      {"throughput", {{"wall_seconds_this_run", summary.seconds},
                      {"seconds_per_image", journal.records().empty() ? 0.0 : total_seconds / journal.records().size()},
                      {"model_seconds", model_seconds},
                      {"overhead_seconds", total_seconds - model_seconds},
                      {"generated_tokens", generated}}},
      {"memory_high_water", {{"device_peak_allocated", high_allocated}, {"host_peak_rss", high_rss}}},
      {"device", device.str()},
      {"config_hash", hash},
      {"earlier_config_hashes", std::vector<std::string>(earlier_hashes.begin(), earlier_hashes.end())},
      {"skipped_files", [&] {
         nlohmann::json files = nlohmann::json::array();
         for (const auto& f : skipped_files) files.push_back({{"file", f.relative}, {"reason", f.reason}});
         return files;
       }()},
      {"interrupted", summary.stopped.empty() ? nlohmann::json(nullptr) : nlohmann::json(summary.stopped)},
  };
  try {
    io::write_file_atomic(o.out_dir / "summary.json", out.dump(2) + "\n");
  } catch (const std::exception& e) {
    if (summary.stopped.empty()) throw;
    summary.stopped += std::string("; ") + e.what();
  }
  return summary;
}

}  // namespace docsift::batch
