// The stages of a run (batch/run.cpp's run_batch): the scan (scan_pages), the output folder's
// journal and tables opened (open_outputs), which pages this run reads (plan_pages), which failed
// pages are gone (gone_pages, write_gone), a finished page's record written (write_page), and
// summary.json from the journal (summarise). Internal to batch/: nothing outside the run uses
// these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/progress.h"
#include "docsift/batch/record.h"
#include "docsift/batch/run.h"
#include "docsift/batch/sink.h"
#include "docsift/config/config.h"
#include "docsift/io/pages.h"
#include "docsift/io/scan.h"
#include "docsift/io/source.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {

// What the journal says of one page: its latest record (a page redone by --retry-failed or because
// its file changed has several; the last supersedes). Kept per page for the whole run, so small.
struct Latest {
  std::uint64_t offset = 0;  // of the latest record's line
  Record::Status status = Record::Status::Failed;
  std::optional<io::SourceStamp> source;
  // Its values were corrected by a person (`docsift review apply`): never read again, even when
  // its file changed (plan_pages), so that no run undoes a correction.
  bool corrected = false;
  bool ok() const { return status == Record::Status::Ok; }
  // Counted in the summary's ok or failed: a gone page's marker is history.
  bool counts() const { return status != Record::Status::Gone; }
};

// One page to read this run.
struct Page {
  const io::ScannedImage* file;
  int page;
  std::string name;   // "invoice.pdf#page=2", or the file's name when it has one page
  int pages = 1;      // the file's page count
  std::string error;  // why the file cannot be read, when it cannot
};

// Why a page the journal has is read again: its last record failed (--retry-failed), or its file
// changed (what changed, for the log).
struct Redo {
  bool retry = false;
  std::string change;
};

// What a run reads (plan_pages).
struct Plan {
  std::vector<Page> todo;
  std::map<std::string, Redo> redo_reason;         // page key → why
  std::set<std::string> found_pages, found_files;  // keys of the pages found; files' relative paths
  // Pages whose file changed but whose latest record holds a person's corrections: kept, not read
  // again (docs/confidence.md, "Corrections"); each a line for the log.
  std::vector<std::string> kept_corrected;
};

// The run's output files, open, and what its journal said of the pages when it was opened: read
// back once, and kept current as the run writes (write_gone, write_page).
struct RunOutputs {
  JournalSink journal;
  Tables tables;                         // output.formats' csv; none without it
  std::map<std::string, Latest> latest;  // page key → what its latest record says
  std::map<std::string, RecordName>
      failed_names;                      // the pages whose latest record failed, when opened
  std::set<std::string> earlier_hashes;  // configs of the journal's records other than this run's
  std::string hash;                      // this run's config (config::hash)
  extract::FieldSchema schema;           // the fields: what the review queue requires
  // Writes the tables whole from the journal's latest records (sink.h, Tables::rebuild).
  void rebuild_tables();
};

// Opens the folder's journal (with --resume, read back once) and its tables, rebuilt from the
// journal in a second pass, so that they match it even if the last run died between its two
// appends. Throws docsift::ConfigError when the journal's records were made with another
// configuration, unless
// --allow-config-change: resuming would mix their results.
RunOutputs open_outputs(const OutputFolder& folder, const config::Config& cfg, const RunOptions& o);

// What summarise needs besides the journal: the run's own facts.
struct RunFacts {
  const config::Config& cfg;
  const RunOptions& o;
  Clock::time_point run_start;
  std::string started_at;
  const std::vector<io::SkippedFile>& skipped_files;
  std::string device;
  const WorkerSupervisor* supervisor;  // under --isolate worker
};

// Streams the journal's latest records (one per page) to `visit`, in journal order.
void for_each_latest(const std::filesystem::path& journal,
                     const std::map<std::string, Latest>& latest,
                     const std::function<void(const Record&)>& visit);

// What each read must find at a file's name: the file the scan resolved it to, unless links are
// followed (io/pinned_file.h; docs/run.md, "Links").
inline std::filesystem::path pinned_real(const io::ScannedImage& image, bool follow_links) {
  return follow_links ? std::filesystem::path() : image.real;
}

// Each file's pages (one for an image): a PDF's count comes from its page tree, without
// rendering. A file that cannot be opened (damaged, encrypted, too many pages) is one failed
// record with the reason; the batch goes on. A page the journal has is skipped, unless its last
// record failed and --retry-failed, or its file is no longer the one that record read. Counts the
// pages found and skipped in `summary`.
Plan plan_pages(const std::vector<io::ScannedImage>& images,
                const std::map<std::string, Latest>& latest, const RunOptions& o,
                const io::PageOptions& page_opts, RunSummary& summary);

// The failed pages whose files are gone (deleted, moved away; a PDF that lost the page), with
// why: each gets a gone marker, which takes it out of the failed set for good. Not when nothing at
// all was found and that is not normal: an unmounted share must not turn every failed page gone.
std::vector<std::pair<RecordName, std::string>> gone_pages(
    const std::map<std::string, RecordName>& failed_names, const Plan& plan, const RunOptions& o,
    const RunSummary& summary);

// The inputs' images, this shard's (--shard), and the files passed over (`skipped`: unreadable, a
// link out of the inbox, not an image), counted in `summary` (scanned, unreadable, links_outside).
std::vector<io::ScannedImage> scan_pages(const RunOptions& o, RunSummary& summary,
                                         std::vector<io::SkippedFile>& skipped);

// Pages that agree (agreement.h), once every page of the run is read: the journal's latest records
// counted, then each record whose agreement that changes journaled anew (the journal is the commit
// point: a run killed on the way leaves what it journaled, and --resume does the rest), then the
// tables rebuilt once. With `spelling` (ocr.batch_spelling), a value one page alone read takes the
// spelling of the pages it is a misreading of. No page is read, so the run's page counts do not
// change. "" when done; else why the run must stop.
std::string write_agreement(RunOutputs& outputs, const config::ReviewConfig& review, bool spelling);

// Journals a gone marker for each of `gone` (docs/run.md, "Gone pages"), each counted in
// summary.gone and shown by `progress`. "" when all were written; else why the run must stop.
std::string write_gone(const std::vector<std::pair<RecordName, std::string>>& gone,
                       RunOutputs& outputs, Progress& progress, RunSummary& summary);

// What write_page did with a page's record.
struct PageWritten {
  bool journaled = false;  // the journal has it: the page counts as this run's
  std::string stopped;     // why the run must stop; "" when the tables took its rows too
};

// Writes `record` of page `name`: the journal record first, then the tables' rows, so that at every
// stop each table is a prefix of what the journal proves, never a row the journal lacks
// (docs/run.md, "Stops"). A row that cannot be written leaves the record journaled and stops the
// run; --resume rebuilds the tables.
PageWritten write_page(const Record& record, const RecordName& name, RunOutputs& outputs);

// summary.json for the whole journal (this run and the runs it resumed): the latest record of each
// page, read back once more; the run's totals go into `summary` too.
Summary summarise(const RunOutputs& outputs, const Plan& plan, const RunFacts& facts,
                  RunSummary& summary);

}  // namespace docsift::batch
