#include "docsift/batch/run.h"

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
#include "docsift/batch/stop_signals.h"
#include "docsift/device/devices.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/generate.h"
#include "docsift/io/journal.h"
#include "docsift/io/page_name.h"
#include "docsift/io/pages.h"
#include "docsift/io/source.h"
#include "docsift/stopwatch.h"
#include "docsift/timestamp.h"
#include "docsift/version.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

// What the journal says of one page: its latest record (a page redone by --retry-failed or because
// its file changed has several; the last supersedes). Kept per page for the whole run, so small.
struct Latest {
  std::uint64_t offset = 0;  // of the latest record's line
  Record::Status status = Record::Status::Failed;
  std::optional<io::SourceStamp> source;
  bool ok() const { return status == Record::Status::Ok; }
  // Counted in the summary's ok or failed: a gone page's marker is history.
  bool counts() const { return status != Record::Status::Gone; }
};

bool missing(const std::error_code& ec) {
  return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
}

// Why a failed page that this run's scan did not find is gone, or "" when its file may still be
// there. `relative` is the page's name as bytes ("x.pdf#page=2"). Gone: its file was found but no
// longer has that page, or the file is not there under any input it could have come from. Still
// failed: the file is there but outside this run's scan (a subfolder without -r), or it cannot be
// looked at (a subfolder that may not be read: a fault, never a deletion).
std::string gone_reason(const std::string& relative, const std::set<std::string>& found_files,
                        const std::vector<io::Input>& inputs) {
  const std::string file(io::file_of(relative));
  if (found_files.count(file) != 0) return "its file no longer has this page";
  std::vector<fs::path> candidates;
  for (const io::Input& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input.path, ec)) {
      candidates.push_back(input.path / file);
    } else if (input.path.lexically_normal().generic_string() == file) {
      candidates.push_back(input.path);
    }
  }
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(candidate, ec);
    if (fs::exists(st) || (ec && !missing(ec))) return "";
  }
  return candidates.empty() ? "its file is no longer among the inputs"
                            : "its file is no longer there (" + display_name(candidates.front().string()) + ")";
}

// One page to read this run.
struct Page {
  const io::ScannedImage* file;
  int page;
  std::string name;   // "invoice.pdf#page=2", or the file's name when it has one page
  std::string error;  // why the file cannot be read, when it cannot
};

// Streams the journal's latest records (one per page) to `visit`, in journal order.
void for_each_latest(const fs::path& journal, const std::map<std::string, Latest>& latest,
                     const std::function<void(const Record&)>& visit) {
  io::read_journal(journal, [&](const nlohmann::json& json, std::uint64_t offset) {
    Record record = Record::from_journal(json);
    const auto it = latest.find(record.key());
    if (it != latest.end() && it->second.offset == offset) visit(record);
  });
}

}  // namespace

RunSummary run_batch(const config::Config& cfg, const RunOptions& o, const Log& log) {
  const auto run_start = Clock::now();
  const std::string started_at = rfc3339_now();
  RunSummary summary;
  std::vector<io::SkippedFile> skipped_files;
  std::vector<io::ScannedImage> images =
      io::scan_inputs(o.inputs, o.recursive, &skipped_files, &summary.subfolders_not_read, o.follow_links);
  summary.scanned_all = static_cast<int>(images.size());
  if (o.shard) {
    const auto other_shard = [&](const std::string& relative) { return shard_of(relative, o.shard->count) != o.shard->index; };
    std::erase_if(images, [&](const io::ScannedImage& image) { return other_shard(image.relative); });
    // A folder that cannot be read holds pages of every shard: each shard says so.
    std::erase_if(skipped_files, [&](const io::SkippedFile& f) { return !f.unreadable && other_shard(f.relative); });
  }
  summary.unreadable = static_cast<int>(std::count_if(skipped_files.begin(), skipped_files.end(),
                                                      [](const io::SkippedFile& f) { return f.unreadable; }));
  summary.links_outside = static_cast<int>(std::count_if(skipped_files.begin(), skipped_files.end(),
                                                         [](const io::SkippedFile& f) { return f.link_outside; }));
  summary.scanned = static_cast<int>(images.size());
  std::error_code ec;
  // Before anything is written: no file docsift writes here may be a link or a non-regular file.
  const OutputFolder folder(o.out_dir, "run");
  if (!folder.lock().taken_over().empty()) log.warning("lock", folder.lock().taken_over());
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
  const auto rebuild_csv = [&] {
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

  // Each file's pages (one for an image): a PDF's count comes from its page tree, without
  // rendering. A file that cannot be opened (damaged, encrypted, too many pages) is one failed
  // record with the reason; the batch goes on. A page the journal has is skipped, unless its last
  // record failed and --retry-failed, or its file is no longer the one that record read.
  const io::PageOptions page_opts = page_options(cfg);
  // What each read must find at a file's name: the file the scan resolved it to, unless links are
  // followed (io/pinned_file.h; docs/run.md, "Links").
  const auto pinned = [&](const io::ScannedImage& image) { return o.follow_links ? fs::path() : image.real; };
  std::vector<Page> todo;
  // Why a page the journal has is read again: its last record failed (--retry-failed), or its file
  // changed (what changed, for the log).
  struct Redo {
    bool retry = false;
    std::string change;
  };
  std::map<std::string, Redo> redo_reason;  // page key → why
  std::set<std::string> found_pages, found_files;  // keys of the pages found; files' relative paths
  for (const auto& image : images) {
    found_files.insert(image.relative);
    std::vector<Page> pages;
    try {
      const int count = io::page_count(image.path, page_opts, pinned(image));
      for (int p = 0; p < count; ++p) pages.push_back({&image, p, io::page_name(image.relative, p, count), ""});
    } catch (const FileError& e) {
      pages.push_back({&image, 0, image.relative, e.what()});
    }
    summary.found += static_cast<int>(pages.size());
    const std::optional<io::SourceStamp> now = io::stamp_file(image.path, /*with_hash=*/false);
    std::optional<std::optional<std::string>> now_hash;  // read once per file, only if asked
    for (auto& page : pages) {
      const std::string key = record_name(page.name).key();
      found_pages.insert(key);
      const auto earlier = latest.find(key);
      std::optional<Redo> redo;
      // A page whose file comes back after it was recorded gone is a new page.
      const bool is_new = earlier == latest.end() || !earlier->second.counts();
      if (!is_new && !earlier->second.ok() && o.retry_failed) {
        redo = Redo{true, ""};
      } else if (!is_new && !o.resume_by_name && earlier->second.source && now) {
        const io::SourceStamp& before = *earlier->second.source;
        std::string change = io::stamp_change(before, *now);
        if (!change.empty() && before.hash && before.size == now->size) {
          // Touched, or copied in again: the same bytes are not a new document.
          if (!now_hash) now_hash = io::content_hash(image.path, pinned(image));
          if (*now_hash == before.hash) change.clear();
        }
        if (!change.empty()) redo = Redo{false, change};
      }
      if (!is_new && !redo) {
        ++summary.skipped;
      } else if (!o.limit || static_cast<int>(todo.size()) < *o.limit) {
        if (redo) redo_reason[key] = *redo;
        todo.push_back(std::move(page));
      }
    }
  }

  // The failed pages whose files are gone (deleted, moved away; a PDF that lost the page): each
  // gets a gone marker below, which takes it out of the failed set for good. Not when nothing at
  // all was found and that is not normal: an unmounted share must not turn every failed page gone.
  std::vector<std::pair<RecordName, std::string>> gone;  // name, why
  if (summary.scanned_all > 0 || o.allow_empty) {
    for (const auto& [key, name] : failed_names) {
      if (found_pages.count(key) != 0) continue;
      Record named;
      named.file = name.file;
      named.file_bytes = name.file_bytes;
      const std::string relative = record_relative(named);
      if (o.shard && shard_of(std::string(io::file_of(relative)), o.shard->count) != o.shard->index) continue;
      std::string why = gone_reason(relative, found_files, o.inputs);
      if (!why.empty()) gone.emplace_back(name, std::move(why));
    }
  }

  // From here on this run owns the folder's summary: the previous one goes, so that a run that
  // dies or cannot write its own never leaves a stale one (docs/run.md, "Stops").
  fs::remove(folder.file(out_files::kSummary), ec);
  Progress progress(log, o.progress_bar, static_cast<int>(todo.size()));
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
  for (const auto& [name, why] : gone) {
    Record marker = Record::gone_marker(name.file, name.file_bytes, why);
    marker.config_hash = hash;
    marker.finished_at = rfc3339_now();
    try {
      latest[name.key()] = Latest{journal.append(marker.to_json()), Record::Status::Gone, std::nullopt};
    } catch (const io::JournalWriteError& e) {
      summary.stopped = e.what();
      summary.write_failed = true;
      break;
    }
    ++summary.gone;
    progress.gone(marker);
  }
  int done = 0;
  const io::ScannedImage* stamped_file = nullptr;
  std::optional<io::SourceStamp> stamp;  // of stamped_file, taken before its first page is read
  for (const Page& page : todo) {
    if (summary.write_failed) break;  // a gone marker the journal could not take
    if (stop.requested()) {
      summary.stopped = "stopped by " + stop.name();
      break;
    }
    const int index = summary.skipped + done + 1;  // processing order across resumed runs
    const auto start = Clock::now();
    const RecordName name = record_name(page.name);
    const auto redo = redo_reason.find(name.key());
    if (redo != redo_reason.end()) {
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
        outcome = reader->read({page.file->path, pinned(*page.file), page.page, index, abandon, &page != &todo.back()});
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
    // The CSV row first, then the journal record: a row that cannot be written (it is cut back
    // whole) stops the run before the journal has the record, and a record the journal cannot take
    // takes its row back out, so at every stop the CSV has exactly the journal's rows. A record
    // that supersedes a good one (its file changed) rebuilds the CSV after the journal has it, so
    // that the old row goes.
    const auto earlier = latest.find(name.key());
    const bool supersedes_row = csv && earlier != latest.end() && earlier->second.ok();
    try {
      if (csv && !supersedes_row) csv->add(record);
    } catch (const std::exception& e) {
      summary.stopped = std::string(e.what()) + "; " + name.file + " is left for --resume";
      summary.write_failed = true;
      break;
    }
    try {
      latest[name.key()] = Latest{journal.append(record.to_json()), record.status, record.source};
    } catch (const io::JournalWriteError& e) {
      // The journal is intact up to its last complete record; stop here, --resume goes on.
      summary.stopped = e.what();
      summary.write_failed = true;
      try {
        if (csv && !supersedes_row) csv->undo_last_add();
      } catch (const std::exception& undo) {  // --resume rebuilds the CSV from the journal
        summary.stopped += std::string("; ") + undo.what();
      }
      break;
    }
    if (supersedes_row) {
      try {
        rebuild_csv();
      } catch (const std::exception& e) {  // the journal has the record; --resume rebuilds the CSV
        summary.stopped = std::string(e.what()) + "; " + name.file + " is journaled, its CSV row left for --resume";
        summary.write_failed = true;
        break;
      }
    }
    ++done;
    ++summary.processed;
    if (redo != redo_reason.end()) ++(redo->second.retry ? summary.retried : summary.changed);
    ++(record.ok() ? summary.ok : summary.failed);
    progress.image_done(done, record);
    if (outcome.fatal) {
      progress.finish();
      throw FileError(cfg.model.path + ": the model cannot be loaded: " + outcome.fatal_error);
    }
  }
  progress.finish();

  // The summary covers the whole journal (this run and the runs it resumed): the latest record of
  // each page, read back once more.
  Summary out;
  for_each_latest(journal_path, latest, [&](const Record& record) {
    summary.totals.add(record);
    if (record.failed() && out.failed_files.size() < Summary::kMaxFailedListed) {
      out.failed_files.push_back({record.file, record.error});
    }
  });
  const Totals& totals = summary.totals;
  summary.total_ok = totals.ok;
  summary.total_failed = totals.failed;
  // The pages found that have no counted record: left by --limit or a stop.
  for (const std::string& key : found_pages) {
    const auto it = latest.find(key);
    if (it == latest.end() || !it->second.counts()) ++summary.pending;
  }
  summary.pages = totals.ok + totals.failed + summary.gone + summary.pending;
  summary.seconds = seconds_since(run_start);
  totals.describe(out);
  out.docsift_version = version();
  out.started_at = started_at;
  out.inputs = o.named;
  out.scanned = summary.scanned;
  out.pages = summary.pages;
  out.found = summary.found;
  out.gone = summary.gone;
  out.pending = summary.pending;
  out.this_run = summary.processed;
  out.retried = summary.retried;
  out.changed = summary.changed;
  out.resumed_from_journal = summary.skipped;
  if (o.shard) out.shard = Summary::ShardInfo{o.shard->index, o.shard->count, summary.scanned_all};
  out.engine = config::to_string(config::resolved_engine(cfg));
  out.model = cfg.model.path;
  out.device = reader->device();
  if (supervisor) {
    const WorkerStats& w = supervisor->stats();
    summary.workers = w;
    out.isolation = {"worker", w.started, w.recycles, w.crashes, w.timeouts, device::cuda_footprint().driver_library,
                     device::cuda_footprint().gpu_devices};
  }
  out.config_hash = hash;
  out.earlier_config_hashes.assign(earlier_hashes.begin(), earlier_hashes.end());
  for (const auto& f : skipped_files) {
    out.skipped_files.push_back({display_name(f.relative), display_name(f.reason), f.unreadable});
  }
  if (!summary.stopped.empty()) out.interrupted = summary.stopped;
  out.wall_seconds_this_run = summary.seconds;
  out.finished_at = rfc3339_now();
  write_summary(o.out_dir, out, summary);
  return summary;
}

}  // namespace docsift::batch
