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
  std::vector<io::Input> inputs;    // folders and files (scan.h), in the order given
  std::vector<std::string> named;   // the inputs as the user gave them, for summary.json
  std::filesystem::path out_dir;
  bool recursive = false;
  bool resume = false;
  // With resume: redo the pages whose latest record failed. The new record supersedes it; the
  // journal keeps both, and the CSV, the summary, merge and eval read the latest.
  bool retry_failed = false;
  // With resume: skip a page the journal has by its name alone, even when its file changed size
  // or modification time since (docs/run.md, "Resume").
  bool resume_by_name = false;
  // --resume into a journal written with another configuration mixes results; refused unless set.
  bool allow_config_change = false;
  std::optional<int> limit;  // process at most N images this run
  bool progress_bar = false;  // a TTY: redraw one line instead of a line per image
  // --shard K/N: only the scanned files of shard K (and their skipped names) are this run's;
  // summary.json records the shard for `docsift merge`. out_dir is the shard's own folder.
  std::optional<Shard> shard;
};

struct RunSummary {
  // scanned: this shard's files (all when not sharded) of scanned_all; processed: this run.
  // pages: of this shard's files (a PDF or TIFF has several, each its own record).
  int scanned = 0, scanned_all = 0, pages = 0, processed = 0, skipped = 0, ok = 0, failed = 0;
  int retried = 0, changed = 0;  // of processed: pages redone because they failed, or their file changed
  int total_ok = 0, total_failed = 0;  // over the whole journal, the latest record of each page
  Totals totals;                       // the same, for the metrics
  std::optional<WorkerStats> workers;  // with worker isolation
  double seconds = 0;
  // Why the run stopped before its last image (a SIGINT/SIGTERM, or a journal write that failed);
  // empty when it ran to the end. The journal holds every finished image; --resume continues.
  std::string stopped;
  bool write_failed = false;
};

// Throws docsift::FileError / ConfigError when the run cannot start (inputs, lock, journal,
// model, fields) or the model cannot be loaded at all; single images never throw.
RunSummary run_batch(const config::Config& config, const RunOptions& options, const Log& log);

}  // namespace docsift::batch
