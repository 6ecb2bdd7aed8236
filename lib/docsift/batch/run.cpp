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

#include "docsift/batch/page_reader.h"
#include "docsift/batch/lock.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/progress.h"
#include "docsift/batch/record.h"
#include "docsift/batch/report.h"
#include "docsift/batch/stop_signals.h"
#include "docsift/batch/supervisor.h"
#include "docsift/device/devices.h"
#include "docsift/batch/supervisor.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/generate.h"
#include "docsift/io/csv.h"
#include "docsift/io/journal.h"
#include "docsift/io/pages.h"
#include "docsift/io/scan.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {
namespace fs = std::filesystem;
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
  if (write_csv) csv.emplace(o.out_dir / "predictions.csv", schema.names());
  Totals totals;
  io::Journal journal(o.out_dir / "results.jsonl", o.resume, [&](const nlohmann::json& json, std::uint64_t) {
    const Record record = Record::from_journal(json);
    totals.add(record);
    if (csv) csv->rebuild(record);
    return record.key();
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

  const std::string hash = config::hash(cfg);
  std::set<std::string> earlier_hashes = totals.config_hashes;
  earlier_hashes.erase(hash);
  if (!earlier_hashes.empty() && !o.allow_config_change) {
    throw ConfigError((o.out_dir / "results.jsonl").string() + ": its records were made with another configuration (" +
                      *earlier_hashes.begin() + ", now " + hash +
                      "); resuming would mix their results. Use the same config and model, another --out, or "
                      "--allow-config-change to mix them knowingly (summary.json then lists every config hash)");
  }
  // From here on this run owns the folder's summary: the previous one goes, so that a run that
  // dies or cannot write its own never leaves a stale one (docs/run.md, "Stops").
  fs::remove(o.out_dir / "summary.json", ec);
  Progress progress(o, log, static_cast<int>(todo.size()));
  // In process, or (memory.isolate: worker) through a worker process: then this process never
  // touches the device, and the worker's events go to the log.
  std::unique_ptr<PageReader> reader;
  const WorkerSupervisor* supervisor = nullptr;
  if (cfg.memory.isolate == config::Isolation::Worker) {
    auto s = std::make_unique<WorkerSupervisor>(cfg, o.out_dir.string(),
                                                [&progress](const std::string& event) { progress.worker(event); });
    supervisor = s.get();
    reader = std::move(s);
  } else {
    reader = open_page_reader(cfg);
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
    PageOutcome outcome;
    try {
      if (!page.error.empty()) {
        outcome.record = Record::failed(page.error);
      } else {
        outcome = reader->read({page.file->path, page.page, index, abandon, &page != &todo.back()});
      }
    } catch (const generate::Interrupted&) {
      // The grace period ran out: this image is abandoned, unrecorded; --resume redoes it.
      summary.stopped = "stopped by " + stop.name() + "; the image in flight, " + name.file + ", is left for --resume";
      break;
    } catch (const WorkerStartError& e) {
      // No worker would start (--isolate worker). With pages journaled, stop as a signal does:
      // the summary and the resume hint; with none, the run could not start at all (exit 3).
      if (summary.skipped + done == 0) throw;
      summary.stopped = std::string(e.what()) + "; " + name.file + " and the pages after it are left for --resume";
      break;
    }
    Record record = std::move(outcome.record);
    record.file = name.file;
    record.config_hash = hash;
    record.file_bytes = name.file_bytes;
    const bool fatal = outcome.fatal;
    const std::string fatal_error = outcome.fatal_error;
    record.timings_s["total"] = seconds_since(start);
    // The CSV row first, then the journal record: a row that cannot be written (it is cut back
    // whole) stops the run before the journal has the record, and a record the journal cannot take
    // takes its row back out, so at every stop the CSV has exactly the journal's rows.
    try {
      if (csv) csv->add(record);
    } catch (const std::exception& e) {
      summary.stopped = std::string(e.what()) + "; " + name.file + " is left for --resume";
      summary.write_failed = true;
      break;
    }
    try {
      journal.append(record.to_json());
    } catch (const io::JournalWriteError& e) {
      // The journal is intact up to its last complete record; stop here, --resume goes on.
      summary.stopped = e.what();
      summary.write_failed = true;
      try {
        if (csv) csv->undo_last_add();
      } catch (const std::exception& undo) {  // --resume rebuilds the CSV from the journal
        summary.stopped += std::string("; ") + undo.what();
      }
      break;
    }
    totals.add(record);
    ++done;
    ++summary.processed;
    if (record.ok()) {
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
  summary.seconds = seconds_since(run_start);
  Summary out;
  totals.describe(out);
  out.scanned = summary.scanned;
  out.pages = summary.pages;
  out.this_run = summary.processed;
  out.resumed_from_journal = summary.skipped;
  if (o.shard) out.shard = Summary::ShardInfo{o.shard->index, o.shard->count, summary.scanned_all};
  out.engine = config::to_string(config::resolved_engine(cfg));
  out.model = cfg.model.path;
  out.device = reader->device();
  if (supervisor) {
    const WorkerStats& w = supervisor->stats();
    out.isolation = {"worker", w.started, w.recycles, w.crashes, w.timeouts, device::cuda_footprint().driver_library,
                     device::cuda_footprint().gpu_devices};
  }
  out.config_hash = hash;
  out.earlier_config_hashes.assign(earlier_hashes.begin(), earlier_hashes.end());
  for (const auto& f : skipped_files) out.skipped_files.push_back({display_name(f.relative), display_name(f.reason)});
  if (!summary.stopped.empty()) out.interrupted = summary.stopped;
  out.wall_seconds_this_run = summary.seconds;
  write_report(o, out, totals, summary, supervisor ? &supervisor->stats() : nullptr);
  return summary;
}

}  // namespace docsift::batch
