// An output folder as `run`, `merge` and `report` write it (docs/run.md, "Outputs"): the names of
// its files in one place, and the checks every writer makes before it writes there, so that the
// commands cannot drift apart (merge once checked results.jsonl.tmp for a link and run did not).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "docsift/batch/lock.h"

namespace docsift::batch {

// The files docsift writes in an output folder. Each but the lock is replaced through a temporary
// beside it, its name plus ".tmp" (io/output_file.h).
namespace out_files {
inline constexpr std::string_view kLock = ".docsift.lock";
inline constexpr std::string_view kJournal = "results.jsonl";
inline constexpr std::string_view kPredictions = "predictions.csv";
inline constexpr std::string_view kConfidence = "confidence.csv";
inline constexpr std::string_view kReview = "review.csv";
inline constexpr std::string_view kSummary = "summary.json";
inline constexpr std::string_view kWritten[] = {kJournal, kPredictions, kConfidence, kReview, kSummary};
}  // namespace out_files

class OutputFolder {
 public:
  // Creates `dir` when it is not there; refuses (docsift::FileError naming it) a link or anything
  // but a regular file at the lock's name, at every name of out_files::kWritten and at each one's
  // temporary, before anything is written; then takes the folder's lock for `what` ("run",
  // "merge"; lock.h), held as long as this object lives.
  OutputFolder(const std::filesystem::path& dir, const std::string& what);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path file(std::string_view name) const { return dir_ / name; }
  const OutputLock& lock() const { return lock_; }

 private:
  static const std::filesystem::path& checked(const std::filesystem::path& dir);
  std::filesystem::path dir_;
  OutputLock lock_;
};

}  // namespace docsift::batch
