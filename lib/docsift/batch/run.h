// `docsift run`: the batch loop. Scan → (skip what the journal has) → per image: decode,
// preprocess, prompt, tier ladder, parse, journal record (fsync), CSV, cleanup → summary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "docsift/batch/shard.h"
#include "docsift/config/config.h"

namespace docsift::batch {

enum class LogFormat { kText, kJson };

struct RunOptions {
  std::filesystem::path input_dir;
  std::filesystem::path out_dir;
  bool recursive = false;
  bool resume = false;
  // --resume into a journal written with another configuration mixes results; refused unless set.
  bool allow_config_change = false;
  std::optional<int> limit;  // process at most N images this run
  bool quiet = false;
  LogFormat log_format = LogFormat::kText;
  bool progress_bar = false;  // a TTY: redraw one line instead of a line per image
  // --metrics: Prometheus text format (node_exporter's textfile collector), written atomically
  // at the end of the run; empty: none.
  std::filesystem::path metrics_path;
  // --shard K/N: only the scanned files of shard K (and their skipped names) are this run's;
  // summary.json records the shard for `docsift merge`. out_dir is the shard's own folder.
  std::optional<Shard> shard;
};

struct RunSummary {
  // scanned: this shard's images (all when not sharded) of scanned_all; processed: this run.
  // pages: of this shard's files (a PDF or TIFF has several, each its own record).
  int scanned = 0, scanned_all = 0, pages = 0, processed = 0, skipped = 0, ok = 0, failed = 0;
  int total_ok = 0, total_failed = 0;                                // over the whole journal
  std::map<std::string, int> tiers;                                  // successful tier → images
  double seconds = 0;
  // Why the run stopped before its last image (a SIGINT/SIGTERM, or a journal write that failed);
  // empty when it ran to the end. The journal holds every finished image; --resume continues.
  std::string stopped;
  bool write_failed = false;
};

// Throws docsift::FileError / ConfigError when the run cannot start (folder, lock, journal,
// model, fields) or the model cannot be loaded at all; single images never throw.
RunSummary run_batch(const config::Config& config, const RunOptions& options, std::ostream& log);

}  // namespace docsift::batch
