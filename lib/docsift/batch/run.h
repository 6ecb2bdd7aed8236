// `docsift run`: the batch loop. Scan the inputs → (skip what the journal has, unless it failed
// and --retry-failed, or its file changed) → per page: decode, preprocess, prompt, tier ladder,
// parse, journal record (fsync), CSV, cleanup → summary.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/shard.h"
#include "docsift/batch/supervisor.h"
#include "docsift/config/config.h"
#include "docsift/io/scan.h"

namespace docsift::batch {

struct RunOptions {
  std::vector<io::Input> inputs;   // folders and files (scan.h), in the order given
  std::vector<std::string> named;  // the inputs as the user gave them, for summary.json
  std::filesystem::path out_dir;
  bool recursive = false;
  // --follow-links (input.follow_links): read links whose target lies outside the folders given;
  // without it they are skipped unopened (docs/run.md, "Links").
  bool follow_links = false;
  bool resume = false;
  // With resume: redo the pages whose latest record failed. The new record supersedes it; the
  // journal keeps both, and the CSV, the summary, merge and eval read the latest.
  bool retry_failed = false;
  // With resume: skip a page the journal has by its name alone, even when its file changed size
  // or modification time since (docs/run.md, "Resume").
  bool resume_by_name = false;
  // --resume into a journal written with another configuration mixes results; refused unless set.
  bool allow_config_change = false;
  // --allow-empty: inputs with no pages are normal, so the failed pages whose files are gone are
  // marked gone then too (without it, finding nothing may be an unmounted share, and nothing is).
  bool allow_empty = false;
  std::optional<int> limit;   // process at most N images this run
  bool progress_bar = false;  // a TTY: redraw one line instead of a line per image
  // --shard K/N: only the scanned files of shard K (and their skipped names) are this run's;
  // summary.json records the shard for `docsift merge`. out_dir is the shard's own folder.
  std::optional<Shard> shard;
  // With memory.isolate: worker, how a worker process is started (the app's own worker command;
  // supervisor.h). The run adds its output folder as the tag.
  WorkerCommand worker;
};

struct RunSummary {
  // scanned: this shard's files (all when not sharded) of scanned_all; processed: this run.
  // found: the pages of this shard's files (a PDF or TIFF has several, each its own record).
  int scanned = 0, scanned_all = 0, found = 0, processed = 0, skipped = 0, ok = 0, failed = 0;
  int retried = 0,
      changed = 0;  // of processed: pages redone because they failed, or their file changed
  int total_ok = 0, total_failed = 0;  // over the whole journal, the latest record of each page
  // gone: failed pages this run found gone and marked so; pending: pages found without a record
  // (--limit, a stop); pages = total_ok + total_failed + gone + pending (summary.json's identity).
  int gone = 0, pending = 0, pages = 0;
  // Folders and files of the inputs that could not be read (skipped_files marked unreadable):
  // their pages are unaccounted for, so the run exits 1.
  int unreadable = 0;
  // Links out of the inputs skipped unopened (skipped_files says which), for the log's last line.
  int links_outside = 0;
  // Without --recursive: the subfolders of the folders given, which were not read.
  std::vector<std::filesystem::path> subfolders_not_read;
  Totals totals;                       // the same, for the metrics
  std::optional<WorkerStats> workers;  // with worker isolation
  double seconds = 0;
  // Why the run stopped before its last image (a SIGINT/SIGTERM, or a journal write that failed);
  // empty when it ran to the end. The journal holds every finished image; --resume continues.
  std::string stopped;
  bool write_failed = false;
  // Why summary.json could not be written at the end of a run that went through its pages (a full
  // disk, a file-size limit); "" when it was. The run exits 5 and --resume writes it.
  std::string summary_error;

  // Fills summary.json's page counts and how the run ended (interrupted, its wall time): the one
  // place this run's counts become the summary's (run_stages.cpp's summarise adds the journal's).
  void describe(Summary& out) const;
};

// Throws docsift::FileError / ConfigError when the run cannot start (inputs, lock, journal,
// model, fields) or the model cannot be loaded at all; single images never throw.
RunSummary run_batch(const config::Config& config, const RunOptions& options, const Log& log);

}  // namespace docsift::batch
