// The report's output folder (docs/report.md, "The folder"): checked before anything is written,
// as `run` and `merge` check theirs (batch/output_folder.h), written through without following a
// link, and cleared of an earlier report's leftover pages. Internal to html_report/.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace docsift::html_report {

class ReportFolder {
 public:
  // Refuses (FileError) `out` when it is a symbolic link or is, or lies inside, one of `inputs`
  // (the run's folder, the baseline's): the report never writes where it reads. Refuses
  // (ConfigError) a folder that holds files but no earlier report's marker. Then creates it and its
  // pages/ and img/ folders (refusing links there too) and writes the marker.
  ReportFolder(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs);

  // Writes `data` at `relative` (under the folder): a temporary beside it, created exclusively and
  // never through a link, then renamed over. No fsync: a report is made again from the run in
  // seconds, and 2,000 fsyncs would cost more than the pages. Safe from several threads.
  void write(const std::filesystem::path& relative, const std::string& data);
  // Removes the files of pages/ and img/ that an earlier report wrote and this one did not.
  void remove_stale();

  const std::filesystem::path& dir() const { return dir_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::filesystem::path dir_;
  std::atomic<std::uint64_t> bytes_{0};
  std::mutex mutex_;
  std::set<std::string> written_;  // relative generic paths
};

}  // namespace docsift::html_report
