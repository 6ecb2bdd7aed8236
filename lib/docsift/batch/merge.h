// `docsift merge FOLDER... --out DIR`: one results.jsonl, predictions.csv and summary.json from
// the output folders of many runs (the shards of one batch), written exactly as one run over all
// the images would write them: one record per image in the order `run` scans, the CSV rebuilt from
// the merged records. A page whose latest record is a gone marker (record.h) is left out, as a
// run leaves it out of its counts. The input folders are only read (under a shared lock, so no run
// writes to them meanwhile), and merging again gives the same bytes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace docsift::batch {

struct MergeOptions {
  std::vector<std::filesystem::path> folders;  // output folders of `docsift run` (shards)
  std::filesystem::path out_dir;
  // --expect DIR: the folder the shards scanned; its images that no folder recorded are listed.
  std::optional<std::filesystem::path> expect_dir;
  bool recursive = false;            // scan --expect as `run --recursive` did
  bool allow_config_change = false;  // merge records made with different configs knowingly
};

struct MergeReport {
  int records = 0, ok = 0, failed = 0;  // in the merged journal
  int gone =
      0;  // pages whose latest record is a gone marker (record.h): left out of the merged folder
  // Each problem as one line for the log; every one of them makes the merge incomplete (exit 1).
  std::vector<std::string>
      duplicates;  // an image recorded by two folders: the first folder's record is kept
  std::vector<std::string> missing;     // --expect: an image no folder recorded, with its shard
  std::vector<std::string> unfinished;  // a folder whose run has not recorded all of its images
  bool complete() const { return duplicates.empty() && missing.empty() && unfinished.empty(); }
};

// Throws docsift::ConfigError when the folders were made with different configs or models (naming
// each folder's config hash and model) or different shard counts, or a folder or shard is given
// twice; docsift::FileError when a folder is not a docsift output folder, a run is still writing
// to it, --out is one of the folders (or inside one), or --out holds a run's own journal.
MergeReport merge_outputs(const MergeOptions& options);

}  // namespace docsift::batch
