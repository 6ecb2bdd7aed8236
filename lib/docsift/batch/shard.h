// `docsift run --shard K/N`: one of N disjoint parts of a folder, so that N processes (a Slurm job
// array, a Kubernetes Indexed Job, GNU parallel over the GPUs of one host) split a batch without
// talking to each other. A file's shard depends only on its path relative to the folder, so adding
// files never moves the others, and re-running one failed shard touches only its own files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace docsift::batch {

struct Shard {
  int index = 1;  // 1-based, as Jest and Playwright spell --shard
  int count = 1;
  std::string
      source;  // where it came from, for the log: "--shard 2/4", "SLURM_ARRAY_TASK_ID=7 ..."

  // The folder under --out that this shard writes: "shard-2-of-4".
  std::string folder_name() const;
};

// The shard a folder named as folder_name() writes ("shard-2-of-4"), or nullopt for any other name.
std::optional<Shard> shard_of_folder_name(std::string_view name);

// "K/N" with 1 <= K <= N (N at most kMaxShards); anything else is a docsift::ConfigError that
// shows the expected form.
Shard parse_shard(std::string_view text);
inline constexpr int kMaxShards = 100000;

// `--shard auto`: the shard of this process from the scheduler's environment.
//  - Slurm job array: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX (or
//    SLURM_ARRAY_TASK_COUNT), stepped by SLURM_ARRAY_TASK_STEP when set: task MIN is shard 1 and
//    the array's size is the count. With `shards` (--shards N) the task id itself is the shard
//    (1..N), so a one-task array (sbatch --array=3) can redo shard 3 of N.
//  - Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) is shard index + 1 of `shards`,
//    which is then required.
// A missing, malformed or inconsistent variable is a docsift::ConfigError naming it.
using Getenv = std::function<const char*(const char*)>;
Shard shard_from_environment(std::optional<int> shards, const Getenv& getenv);

// The 1-based shard of a file among `count`: its path relative to the scanned folder
// ('/'-separated, the journal's key bytes) through 64-bit FNV-1a and the SplitMix64 finaliser (so
// that names that differ in one character spread evenly), modulo `count`.
int shard_of(std::string_view relative, int count);

}  // namespace docsift::batch
