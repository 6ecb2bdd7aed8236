#include "docsift/batch/run.h"

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <semaphore>
#include <utility>

#include "docsift/batch/ocr_reader.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/page_reader.h"
#include "docsift/batch/progress.h"
#include "docsift/batch/record.h"
#include "docsift/batch/report.h"
#include "docsift/batch/run_stages.h"
#include "docsift/batch/stop_signals.h"
#include "docsift/error.h"
#include "docsift/extract/document.h"
#include "docsift/io/pages.h"
#include "docsift/io/source.h"
#include "docsift/stopwatch.h"
#include "docsift/timestamp.h"

namespace docsift::batch {
namespace {

// What reads the pages: in process, or (memory.isolate: worker) a worker process, when this
// process never touches the device and the worker's events go to the log.
struct Reader {
  std::unique_ptr<PageReader> pages;
  const WorkerSupervisor* supervisor = nullptr;  // the same, under worker isolation
};

Reader open_reader(const config::Config& cfg, const RunOptions& o, Progress& progress) {
  if (cfg.memory.isolate != config::Isolation::Worker) return {open_page_reader(cfg), nullptr};
  auto supervisor = std::make_unique<WorkerSupervisor>(
      cfg, o.worker, o.out_dir.string(),
      [&progress](const std::string& event) { progress.worker(event); });
  const WorkerSupervisor* s = supervisor.get();
  return {std::move(supervisor), s};
}

// What reading the pages needs besides the plan.
struct Reading {
  const config::Config& cfg;
  const RunOptions& o;
  const Log& log;
  const StopSignals& stop;
  PageReader& reader;
  RunOutputs& outputs;
  Progress& progress;
};

// A changed file supersedes what the journal held, said with --quiet too (the outputs change); a
// retried page's outcome has its own line when it fails again.
void say_redo(const Log& log, const RecordName& name, const Redo& why) {
  log.write(why.retry ? Log::Level::kInfo : Log::Level::kNotice, "redo",
            why.retry ? "retrying " + name.file + ": its last record failed"
                      : "reading " + name.file + " again: changed since its record: " + why.change,
            {{"file", name.file},
             {"why", why.retry ? "retry-failed" : "changed"},
             {"detail", why.change}});
}

// A page whose read has begun, with what its record takes from the moment it began.
struct Started {
  const Page* page;
  RecordName name;
  std::map<std::string, Redo>::const_iterator redo;
  std::optional<io::SourceStamp> stamp;  // of its file, taken before the file's first page is read
  std::string started_at;
  // With the seconds its read took once it had a core: its record's timings_s.total, not the wait
  // for a core nor for the pages before it to be written. Deferred (read by get(), on this
  // thread) one page at a time.
  std::future<std::pair<PageOutcome, double>> outcome;
};

// Begins reading `page`: on a thread of its own once one of `cores` is free when pages are read
// at once, else (`cores` null) when its outcome is asked for.
Started start_page(const Page& page, int index, bool more, std::counting_semaphore<>* cores,
                   const Plan& plan, const Reading& r, std::optional<io::SourceStamp> stamp) {
  Started s{&page, record_name(page.name), {}, std::move(stamp), rfc3339_now(), {}};
  s.redo = plan.redo_reason.find(s.name.key());
  if (s.redo != plan.redo_reason.end()) say_redo(r.log, s.name, s.redo->second);
  const PageRequest request{page.file->path, pinned_real(*page.file, r.o.follow_links), page.page,
                            index,           [&r] { return r.stop.abandon(); },         more};
  s.outcome = std::async(cores ? std::launch::async : std::launch::deferred,
                         [&reader = r.reader, request, error = page.error, cores] {
                           if (cores) cores->acquire();
                           const auto t = Clock::now();
                           struct Release {  // also when the read throws
                             std::counting_semaphore<>* held;
                             ~Release() {
                               if (held) held->release();
                             }
                           } release{cores};
                           PageOutcome out = error.empty()
                                                 ? reader.read(request)
                                                 : PageOutcome{Record::failure(error), false, ""};
                           return std::pair(std::move(out), seconds_since(t));
                         });
  return s;
}

// A started page's outcome; nullopt when the run stops here, with why in summary.stopped.
std::optional<std::pair<PageOutcome, double>> finish_read(Started& s, const Reading& r,
                                                          RunSummary& summary) {
  try {
    return s.outcome.get();
  } catch (const StopRequested&) {
    // The grace period ran out: this image is abandoned, unrecorded; --resume redoes it.
    summary.stopped = "stopped by " + r.stop.name() + "; the image in flight, " + s.name.file +
                      ", is left for --resume";
  } catch (const WorkerStartError& e) {
    // No worker would start (--isolate worker). With pages journaled, stop as a signal does:
    // the summary and the resume hint; with none, the run could not start at all (exit 3).
    if (summary.skipped + summary.processed == 0) throw;
    summary.stopped = std::string(e.what()) + "; " + s.name.file +
                      " and the pages after it are left for --resume";
  }
  return std::nullopt;
}

// The plan's pages in order, each record written as it ends (write_page) and counted in `summary`,
// until the last page, a stop or a write that fails (summary.stopped says which). With the reader's
// pages_at_once above 1 the next pages are read meanwhile on other threads; records are still
// written, counted and shown in the plan's order, and a stop lets the pages begun finish and be
// written. Throws FileError when the model cannot be loaded at all.
void read_pages(const Plan& plan, const Reading& r, RunSummary& summary) {
  // What a page of a file of several carries for its document's row (journal/record.h).
  const std::map<std::string, extract::PageRule> page_rules = extract::page_rules(r.outputs.schema);
  const int at_once = std::max(1, r.reader.pages_at_once());
  // Up to twice as many pages begun as read at once: a page read before the one ahead of it is
  // written frees its core for the next. A page waiting for a core holds nothing yet: its file is
  // opened and decoded once it has one.
  const std::size_t window = at_once > 1 ? 2 * static_cast<std::size_t>(at_once) : 1;
  std::counting_semaphore<> cores(at_once);  // outlives `begun`, whose reads hold it
  const int first_index = summary.skipped + summary.processed + 1;  // across resumed runs
  const io::ScannedImage* stamped_file = nullptr;
  std::optional<io::SourceStamp> stamp;  // of stamped_file, taken before its first page is read
  std::deque<Started> begun;             // destroyed before a throw leaves: each read ends first
  std::size_t next = 0;
  while (!summary.write_failed) {  // a gone marker or a record the journal could not take
    if (next < plan.todo.size() && r.stop.requested() && summary.stopped.empty())
      summary.stopped = "stopped by " + r.stop.name();
    while (summary.stopped.empty() && next < plan.todo.size() && begun.size() < window) {
      const Page& page = plan.todo[next];
      if (stamped_file != page.file) {
        stamped_file = page.file;
        stamp = io::stamp_file(page.file->path, /*with_hash=*/true,
                               pinned_real(*page.file, r.o.follow_links));
      }
      begun.push_back(start_page(page, first_index + static_cast<int>(next),
                                 next + 1 < plan.todo.size(), at_once > 1 ? &cores : nullptr, plan,
                                 r, stamp));
      ++next;
    }
    if (begun.empty()) break;
    Started s = std::move(begun.front());
    begun.pop_front();
    auto read = finish_read(s, r, summary);
    if (!read) break;
    PageOutcome* outcome = &read->first;
    Record& record = outcome->record;
    mark_review(record, r.cfg.review, r.outputs.schema);  // the review queue (docs/confidence.md)
    record.file = s.name.file;
    record.config_hash = r.outputs.hash;
    record.file_bytes = s.name.file_bytes;
    if (s.page->pages > 1) record.document = Record::Document{s.page->pages, page_rules};
    record.source = s.stamp;
    record.started_at = s.started_at;
    record.finished_at = rfc3339_now();
    record.timings_s["total"] = read->second;
    PageWritten written = write_page(record, s.name, r.outputs);
    if (written.journaled) {  // counted as the journal holds it, its CSV row written or not
      ++summary.processed;
      if (s.redo != plan.redo_reason.end())
        ++(s.redo->second.retry ? summary.retried : summary.changed);
      ++(record.ok() ? summary.ok : summary.failed);
      r.progress.image_done(summary.processed, record);
    }
    if (!written.stopped.empty()) {
      summary.stopped = std::move(written.stopped);
      summary.write_failed = true;
      break;
    }
    if (outcome->fatal) {
      r.progress.finish();
      throw FileError(r.cfg.model.path + ": the model cannot be loaded: " + outcome->fatal_error);
    }
  }
}

}  // namespace

RunSummary run_batch(const config::Config& cfg, const RunOptions& o, const Log& log) {
  const auto run_start = Clock::now();
  const std::string started_at = rfc3339_now();
  RunSummary summary;
  std::vector<io::SkippedFile> skipped_files;
  const std::vector<io::ScannedImage> images = scan_pages(o, summary, skipped_files);
  // Before anything is written: no file docsift writes here may be a link or a non-regular file.
  const OutputFolder folder(o.out_dir, "run");
  if (!folder.lock().taken_over().empty()) log.warning("lock", folder.lock().taken_over());
  if (const std::string why = missing_recognizer(cfg); !why.empty()) log.warning("recognizer", why);
  const StopSignals stop;
  RunOutputs outputs = open_outputs(folder, cfg, o);

  const Plan plan = plan_pages(images, outputs.latest, o, page_options(cfg), summary);
  for (const std::string& line : plan.kept_corrected) log.warning("corrected", display_name(line));
  const std::vector<std::pair<RecordName, std::string>> gone =
      gone_pages(outputs.failed_names, plan, o, summary);
  folder.remove_summary();  // from here on this run owns the folder's summary
  Progress progress(log, o.progress_bar, static_cast<int>(plan.todo.size()));
  const Reader reader = open_reader(cfg, o, progress);
  if (!summary.subfolders_not_read.empty()) progress.not_descended(summary.subfolders_not_read);
  for (const auto& f : skipped_files) progress.skipped(f);
  if (std::string why = write_gone(gone, outputs, progress, summary); !why.empty()) {
    summary.stopped = std::move(why);
    summary.write_failed = true;
  }
  read_pages(plan, {cfg, o, log, stop, *reader.pages, outputs, progress}, summary);
  progress.finish();
  // Pages that agree (agreement.h): only once every page is read, so that a run that stops leaves
  // the count to --resume.
  if (summary.stopped.empty()) {
    if (std::string why = write_agreement(outputs, cfg.review, cfg.ocr.batch_spelling);
        !why.empty()) {
      summary.stopped = std::move(why);
      summary.write_failed = true;
    }
  }

  const Summary out = summarise(
      outputs, plan,
      {cfg, o, run_start, started_at, skipped_files, reader.pages->device(), reader.supervisor},
      summary);
  write_summary(folder, out, summary);
  return summary;
}

}  // namespace docsift::batch
