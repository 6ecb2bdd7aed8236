#include "docsift/batch/run.h"

#include "docsift/batch/ocr_reader.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/page_reader.h"
#include "docsift/batch/progress.h"
#include "docsift/batch/record.h"
#include "docsift/batch/report.h"
#include "docsift/batch/run_stages.h"
#include "docsift/batch/stop_signals.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/generate.h"
#include "docsift/io/journal.h"
#include "docsift/io/pages.h"
#include "docsift/io/source.h"
#include "docsift/stopwatch.h"
#include "docsift/timestamp.h"

namespace docsift::batch {
namespace fs = std::filesystem;

RunSummary run_batch(const config::Config& cfg, const RunOptions& o, const Log& log) {
  const auto run_start = Clock::now();
  const std::string started_at = rfc3339_now();
  RunSummary summary;
  std::vector<io::SkippedFile> skipped_files;
  const std::vector<io::ScannedImage> images = scan_pages(o, summary, skipped_files);
  std::error_code ec;
  // Before anything is written: no file docsift writes here may be a link or a non-regular file.
  const OutputFolder folder(o.out_dir, "run");
  if (!folder.lock().taken_over().empty()) log.warning("lock", folder.lock().taken_over());
  if (const std::string why = missing_recognizer(cfg); !why.empty()) log.warning("recognizer", why);
  const StopSignals stop;
  const extract::FieldSchema schema = extract::load_field_schema(cfg.extraction.fields);
  const bool write_csv = std::find(cfg.output.formats.begin(), cfg.output.formats.end(), "csv") != cfg.output.formats.end();
  const fs::path journal_path = folder.file(out_files::kJournal);

  // The journal read back once for what each page last did and which configs made it; the CSV is
  // then rebuilt from the latest records in a second pass, so it matches the journal even if the
  // last run died between its two appends.
  std::map<std::string, Latest> latest;
  std::map<std::string, RecordName> failed_names;  // the pages whose latest record failed
  std::set<std::string> earlier_hashes;
  io::Journal journal(journal_path, o.resume, [&](const nlohmann::json& json, std::uint64_t offset) {
    const Record record = Record::from_journal(json);
    latest[record.key()] = Latest{offset, record.status, record.source};
    if (record.failed()) {
      failed_names[record.key()] = RecordName{record.file, record.file_bytes};
    } else {
      failed_names.erase(record.key());
    }
    earlier_hashes.insert(record.config_hash);
  });
  std::optional<PredictionsCsv> csv;
  const std::function<void()> rebuild_csv = [&] {
    csv.reset();
    csv.emplace(folder.file(out_files::kPredictions), schema.names());
    for_each_latest(journal_path, latest, [&](const Record& record) { csv->rebuild(record); });
    csv->start();
  };
  if (write_csv) rebuild_csv();

  const std::string hash = config::hash(cfg);
  earlier_hashes.erase(hash);
  if (!earlier_hashes.empty() && !o.allow_config_change) {
    throw ConfigError(journal_path.string() + ": its records were made with another configuration (" +
                      *earlier_hashes.begin() + ", now " + hash +
                      "); resuming would mix their results. Use the same config and model, another --out, or "
                      "--allow-config-change to mix them knowingly (summary.json then lists every config hash)");
  }

  const Plan plan = plan_pages(images, latest, o, page_options(cfg), summary);
  const auto pinned = [&](const io::ScannedImage& image) { return pinned_real(image, o.follow_links); };
  const std::vector<std::pair<RecordName, std::string>> gone = gone_pages(failed_names, plan, o, summary);

  // From here on this run owns the folder's summary: the previous one goes, so that a run that
  // dies or cannot write its own never leaves a stale one (docs/run.md, "Stops").
  fs::remove(folder.file(out_files::kSummary), ec);
  Progress progress(log, o.progress_bar, static_cast<int>(plan.todo.size()));
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
  if (!summary.subfolders_not_read.empty()) progress.not_descended(summary.subfolders_not_read);
  for (const auto& f : skipped_files) progress.skipped(f);
  if (std::string why = write_gone(gone, hash, journal, latest, progress, summary); !why.empty()) {
    summary.stopped = std::move(why);
    summary.write_failed = true;
  }
  int done = 0;
  const io::ScannedImage* stamped_file = nullptr;
  std::optional<io::SourceStamp> stamp;  // of stamped_file, taken before its first page is read
  for (const Page& page : plan.todo) {
    if (summary.write_failed) break;  // a gone marker the journal could not take
    if (stop.requested()) {
      summary.stopped = "stopped by " + stop.name();
      break;
    }
    const int index = summary.skipped + done + 1;  // processing order across resumed runs
    const auto start = Clock::now();
    const RecordName name = record_name(page.name);
    const auto redo = plan.redo_reason.find(name.key());
    if (redo != plan.redo_reason.end()) {
      const Redo& why = redo->second;
      // A changed file supersedes what the journal held (with --quiet too: the outputs change);
      // a retried page's outcome has its own line when it fails again.
      log.write(why.retry ? Log::Level::kInfo : Log::Level::kNotice, "redo",
               why.retry ? "retrying " + name.file + ": its last record failed"
                         : "reading " + name.file + " again: changed since its record: " + why.change,
               {{"file", name.file}, {"why", why.retry ? "retry-failed" : "changed"}, {"detail", why.change}});
    }
    if (stamped_file != page.file) {
      stamped_file = page.file;
      stamp = io::stamp_file(page.file->path, /*with_hash=*/true, pinned(*page.file));
    }
    const std::string page_started = rfc3339_now();
    PageOutcome outcome;
    try {
      if (!page.error.empty()) {
        outcome.record = Record::failure(page.error);
      } else {
        outcome = reader->read({page.file->path, pinned(*page.file), page.page, index, abandon, &page != &plan.todo.back()});
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
    mark_review(record, cfg.review);  // the fields below review.threshold (docs/confidence.md)
    record.file = name.file;
    record.config_hash = hash;
    record.file_bytes = name.file_bytes;
    record.source = stamp;
    record.started_at = page_started;
    record.finished_at = rfc3339_now();
    record.timings_s["total"] = seconds_since(start);
    if (std::string why = write_page(record, name, {journal, csv, latest, rebuild_csv}); !why.empty()) {
      summary.stopped = std::move(why);
      summary.write_failed = true;
      break;
    }
    ++done;
    ++summary.processed;
    if (redo != plan.redo_reason.end()) ++(redo->second.retry ? summary.retried : summary.changed);
    ++(record.ok() ? summary.ok : summary.failed);
    progress.image_done(done, record);
    if (outcome.fatal) {
      progress.finish();
      throw FileError(cfg.model.path + ": the model cannot be loaded: " + outcome.fatal_error);
    }
  }
  progress.finish();

  const Summary out = summarise(journal_path, latest, plan,
                                {cfg, o, run_start, started_at, hash, earlier_hashes, skipped_files, reader->device(), supervisor},
                                summary);
  write_summary(o.out_dir, out, summary);
  return summary;
}

}  // namespace docsift::batch
