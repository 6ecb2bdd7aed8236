#include "docsift/batch/merge.h"

#include <algorithm>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/record.h"
#include "docsift/batch/shard.h"
#include "docsift/batch/sink.h"
#include "docsift/error.h"
#include "docsift/io/csv.h"
#include "docsift/io/journal.h"
#include "docsift/io/output_file.h"
#include "docsift/io/page_name.h"
#include "docsift/io/same_file.h"
#include "docsift/io/scan.h"
#include "docsift/journal/lock.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

// One input folder, as far as the merge needs it.
struct Folder {
  fs::path path;
  std::optional<Summary> summary;       // its summary.json, when the run wrote one
  std::set<std::string> config_hashes;  // of its records (and its summary)
  std::string model;                    // model.path from its summary
  std::optional<Shard> shard;
  int records = 0;
  std::uint64_t torn_bytes = 0;
  std::vector<std::string> csv_fields;  // predictions.csv's field columns; empty when it has none
};

// Where a merged record comes from: which folder, and its line's offset in that journal; `gone`
// when that record is a gone marker (record.h), which the merged folder leaves out.
struct Source {
  std::size_t folder;
  std::uint64_t offset;
  bool gone = false;
};

std::optional<Summary> read_summary(const fs::path& folder) {
  const fs::path path = folder / out_files::kSummary;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    return Summary::from_json(nlohmann::json::parse(in), path.string());
  } catch (const nlohmann::json::exception& e) {
    throw MalformedInputError(path.string() + ": not JSON (" + e.what() +
                              "); run that folder's shard again with --resume");
  }
}

std::vector<std::string> read_csv_fields(const fs::path& folder) {
  std::ifstream in(folder / out_files::kPredictions, std::ios::binary);
  std::string header;
  if (!in || !std::getline(in, header)) return {};
  const auto table = io::parse_csv(header + "\n", (folder / out_files::kPredictions).string());
  if (table.header.empty() || table.header.front() != "image_file") {
    throw MalformedInputError((folder / out_files::kPredictions).string() +
                              ": its header does not start with image_file");
  }
  return {table.header.begin() + 1, table.header.end()};
}

std::string describe(const Folder& f) {
  std::string hashes;
  for (const auto& h : f.config_hashes) hashes += (hashes.empty() ? "" : "+") + h;
  return f.path.string() + " (config " + (hashes.empty() ? "none" : hashes) +
         (f.model.empty() ? "" : ", model " + f.model) + ")";
}

// A page: its file's name bytes, then the page number, the order `run` scans and records in
// ("x.pdf#page=2" before "x.pdf#page=10").
using PageKey = std::pair<std::string, int>;

// The folders to merge, each checked: there, a folder, holding a journal, given once, and not the
// output folder or above it. Throws what merge_outputs documents.
std::vector<Folder> checked_folders(const MergeOptions& o) {
  std::vector<Folder> folders;
  for (const auto& path : o.folders) {
    (void)journal::journal_to_read(path, path.string());
    std::error_code ec;
    for (const auto& earlier : folders) {
      if (fs::equivalent(earlier.path, path, ec))
        throw ConfigError(path.string() + ": given twice");
    }
    if (io::is_within(o.out_dir, path)) {
      throw FileError(o.out_dir.string() + ": is, or is inside, the input folder " + path.string() +
                      "; merge never changes its input folders. Choose another --out");
    }
    folders.push_back({path, {}, {}, {}, {}, 0, 0, {}});
  }
  return folders;
}

// Folder `i`'s journal read into `merged` (the latest record of each page, the first folder's where
// two have one: a duplicate in `report`), with its summary, its config hashes and its CSV's
// columns; an unfinished run is said in `report`.
void read_folder(std::size_t i, std::vector<Folder>& folders, std::map<PageKey, Source>& merged,
                 MergeReport& report) {
  Folder& f = folders[i];
  f.summary = read_summary(f.path);
  if (f.summary) {
    const Summary& s = *f.summary;
    if (!s.config_hash.empty()) f.config_hashes.insert(s.config_hash);
    f.model = s.model;
    if (s.shard) f.shard = Shard{s.shard->index, s.shard->count, ""};
  } else {
    // A shard killed before its summary: its folder's name still says which shard it is, so it is
    // reported unfinished, not missing (run --shard names it so).
    fs::path name = f.path.lexically_normal();
    if (name.filename().empty()) name = name.parent_path();  // "out/shard-2-of-3/"
    f.shard = shard_of_folder_name(name.filename().string());
  }
  const fs::path journal = f.path / out_files::kJournal;
  std::map<PageKey, bool> own;  // this folder's pages: whether the latest record is a gone marker
  const std::uint64_t good_end =
      io::read_journal(journal, [&](const nlohmann::json& json, std::uint64_t offset) {
        const Record record = Record::from_journal(json);
        f.config_hashes.insert(record.config_hash);
        const std::string relative = record_relative(record);
        const PageKey key{std::string(io::file_of(relative)), io::page_of(relative)};
        own[key] = record.gone();
        const auto at = merged.find(key);
        if (at == merged.end()) {
          merged.emplace(key, Source{i, offset, record.gone()});
        } else if (at->second.folder == i) {
          // Redone in the same folder (--retry-failed, a changed file, gone): the latest wins.
          at->second = Source{i, offset, record.gone()};
        } else if (at->second.gone) {
          at->second =
              Source{i, offset, record.gone()};  // gone there: this folder's record is the page's
        } else if (!record.gone()) {
          report.duplicates.push_back(display_name(relative) + ": recorded in " +
                                      folders[at->second.folder].path.string() + " and " +
                                      f.path.string() + " (the first is kept)");
        }
      });
  // This folder's pages, each once; a page whose latest record is a gone marker is no longer one.
  f.records = static_cast<int>(
      std::count_if(own.begin(), own.end(), [](const auto& page) { return !page.second; }));
  f.torn_bytes = fs::file_size(journal) - good_end;
  f.csv_fields = read_csv_fields(f.path);

  // Is its run finished? Its summary says how many images the run had; a killed run wrote none.
  if (f.torn_bytes > 0) {
    report.unfinished.push_back(
        journal.string() + ": ends in a torn line (" + std::to_string(f.torn_bytes) +
        " bytes; its run was killed mid-write), left out; run that shard again with --resume");
  } else if (!f.summary) {
    report.unfinished.push_back(
        f.path.string() + ": no " + std::string(out_files::kSummary) +
        ", so its run has not finished (or was killed); run that shard again with --resume");
  } else {
    const Summary& s = *f.summary;
    const int scanned = s.scanned, recorded = s.ok + s.failed;
    if (s.interrupted || s.pending > 0 || recorded < scanned || recorded != f.records) {
      report.unfinished.push_back(f.path.string() + ": its run recorded " +
                                  std::to_string(f.records) + " of " + std::to_string(scanned) +
                                  " images" +
                                  (s.interrupted ? " (" + *s.interrupted + ")" : std::string()) +
                                  "; run that shard again with --resume");
    }
  }
}

// Folder `i`'s shard, when it is one, noted in `shard_folders` and `shard_count`: throws
// docsift::ConfigError when its count is not the other shards' or another folder is the same shard.
void note_shard(std::size_t i, const std::vector<Folder>& folders,
                std::map<int, std::size_t>& shard_folders, std::optional<int>& shard_count) {
  const Folder& f = folders[i];
  if (!f.shard) return;
  if (shard_count && *shard_count != f.shard->count) {
    throw ConfigError(f.path.string() + ": is shard " + std::to_string(f.shard->index) + " of " +
                      std::to_string(f.shard->count) + ", but " +
                      folders[shard_folders.begin()->second].path.string() + " is of " +
                      std::to_string(*shard_count) + "; merge the shards of one batch");
  }
  shard_count = f.shard->count;
  const auto [at, inserted] = shard_folders.emplace(f.shard->index, i);
  if (!inserted) {
    throw ConfigError("shard " + std::to_string(f.shard->index) + " of " +
                      std::to_string(f.shard->count) + " is in both " +
                      folders[at->second].path.string() + " and " + f.path.string() +
                      "; merge one of them");
  }
}

// The field columns of the folders' predictions.csv, which must agree; none when no folder wrote
// one.
std::vector<std::string> table_fields(const std::vector<Folder>& folders) {
  std::vector<std::string> fields;
  for (const auto& f : folders) {
    if (f.csv_fields.empty()) continue;
    if (!fields.empty() && f.csv_fields != fields) {
      throw ConfigError((f.path / out_files::kPredictions).string() +
                        ": its columns differ from the other folders'");
    }
    fields = f.csv_fields;
  }
  return fields;
}

// The merged journal (each page's record from its folder, in page order), and the tables from it
// when the folders wrote CSVs (predictions.csv, confidence.csv, review.csv, as a run writes them),
// each written whole; the gone markers left out and counted in `report`. Returns the totals of what
// was written.
Totals write_merged(const std::vector<Folder>& folders, const std::map<PageKey, Source>& merged,
                    const std::vector<std::string>& fields, const OutputFolder& out,
                    MergeReport& report) {
  Totals totals;
  std::vector<std::ifstream> journals;
  for (const auto& f : folders)
    journals.emplace_back(f.path / out_files::kJournal, std::ios::binary);
  // The shards' journal lines are copied as they are, not written again from their records: a
  // merged line is byte for byte the line its run wrote.
  io::AtomicFile journal(out.file(out_files::kJournal));
  std::vector<std::unique_ptr<TableSink>> tables;
  if (!fields.empty()) {
    for (const Output table : kTables)
      tables.push_back(out.table(table, fields, TableSink::Mode::kWhole));
  }
  std::string line;
  for (const auto& [key, source] : merged) {
    if (source.gone) {  // history: the page's file is gone, as a single run leaves it out of its
                        // counts
      ++report.gone;
      continue;
    }
    auto& in = journals[source.folder];
    in.seekg(static_cast<std::streamoff>(source.offset));
    if (!std::getline(in, line)) {
      throw FileError((folders[source.folder].path / out_files::kJournal).string() +
                      ": changed while it was merged");
    }
    const Record record =
        Record::from_json(nlohmann::json::parse(line), folders[source.folder].path.string());
    totals.add(record);
    journal.write(line + "\n");
    for (auto& table : tables) table->write(record);
  }
  journal.commit();
  for (auto& table : tables) table->finish();
  return totals;
}

// The images of `dir` (--expect) that no merged folder recorded, each with its shard when the
// folders are shards.
std::vector<std::string> unrecorded(const fs::path& dir, bool recursive,
                                    const std::map<PageKey, Source>& merged,
                                    const std::optional<int>& shard_count) {
  std::vector<std::string> missing;
  std::set<std::string> recorded_files;  // a PDF is recorded when any of its pages is
  for (const auto& [key, source] : merged) {
    if (!source.gone) recorded_files.insert(key.first);
  }
  for (const auto& image : io::scan_images(dir, recursive)) {
    if (recorded_files.count(image.relative)) continue;
    std::string line = display_name(image.relative) + ": no folder recorded it";
    if (shard_count)
      line += " (shard " + std::to_string(shard_of(image.relative, *shard_count)) + " of " +
              std::to_string(*shard_count) + ")";
    missing.push_back(line);
  }
  return missing;
}

// The merged folder's summary.json: its totals, where each page came from, the configs, and what
// the report found (duplicates, unfinished folders, files no folder recorded).
Summary merged_summary(const std::vector<Folder>& folders, const Totals& totals,
                       const std::set<std::string>& hashes, const MergeReport& report,
                       bool expected) {
  Summary summary;
  totals.describe(summary);
  summary.recorded = static_cast<int>(totals.records);
  summary.merged_from.emplace();
  for (const auto& f : folders) {
    std::optional<Summary::ShardInfo> shard;
    if (f.shard) shard = Summary::ShardInfo{f.shard->index, f.shard->count, 0};
    summary.merged_from->push_back(
        {f.path.string(), f.records, shard,
         std::vector<std::string>(f.config_hashes.begin(), f.config_hashes.end()), f.model});
  }
  summary.config_hashes.assign(hashes.begin(), hashes.end());
  summary.duplicates = report.duplicates;
  summary.unfinished = report.unfinished;
  if (expected) summary.missing = report.missing;
  summary.complete = report.complete();
  return summary;
}

}  // namespace

MergeReport merge_outputs(const MergeOptions& o) {
  if (o.folders.empty())
    throw ConfigError("merge: give the output folders to merge (e.g. results/shard-*)");
  std::vector<Folder> folders = checked_folders(o);

  std::error_code ec;
  // A merge refused before it writes leaves nothing behind: the lock file and the folder it created
  // go again (a folder that existed keeps whatever it held).
  struct UndoOnRefusal {
    fs::path dir;
    bool made_dir = false, made_lock = false;
    int exceptions = std::uncaught_exceptions();
    bool writing = false;
    ~UndoOnRefusal() {
      if (writing || std::uncaught_exceptions() == exceptions) return;
      std::error_code ignored;
      if (made_lock) fs::remove(dir / out_files::kLock, ignored);
      if (made_dir) fs::remove(dir, ignored);  // only if empty
    }
  } undo{o.out_dir, !fs::exists(o.out_dir, ec), !fs::exists(o.out_dir / out_files::kLock, ec)};
  const OutputFolder out(o.out_dir, "merge");
  // A run's own journal is never replaced: only a folder that a merge wrote can be merged into
  // again.
  if (fs::exists(out.file(out_files::kJournal), ec)) {
    const auto summary = read_summary(o.out_dir);
    if (!summary || !summary->merged_from) {
      throw FileError(o.out_dir.string() +
                      ": holds the journal of a docsift run, which a merge would replace; choose "
                      "another --out");
    }
  }

  // Read every folder under its shared lock: the records' names, sources and config hashes.
  std::vector<std::unique_ptr<FolderReadLock>> locks;
  std::map<PageKey, Source> merged;
  MergeReport report;
  std::map<int, std::size_t> shard_folders;  // shard index → folder
  std::optional<int> shard_count;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    locks.push_back(std::make_unique<FolderReadLock>(folders[i].path));
    read_folder(i, folders, merged, report);
    note_shard(i, folders, shard_folders, shard_count);
  }

  // One config (which includes the model folder) across every folder, unless asked otherwise.
  std::set<std::string> hashes;
  for (const auto& f : folders) hashes.insert(f.config_hashes.begin(), f.config_hashes.end());
  hashes.erase("");
  if (hashes.size() > 1 && !o.allow_config_change) {
    std::string list;
    for (const auto& f : folders) list += "\n  " + describe(f);
    throw ConfigError(
        "merge: the folders were made with different configurations or models, so their results do "
        "not belong in one table:" +
        list + "\nRun them again with one config, or pass --allow-config-change");
  }
  const std::vector<std::string> fields = table_fields(folders);
  if (shard_count) {
    for (int k = 1; k <= *shard_count; ++k) {
      if (!shard_folders.count(k)) {
        report.unfinished.push_back(
            "shard " + std::to_string(k) + " of " + std::to_string(*shard_count) +
            " is not among the folders (its folder is shard-" + std::to_string(k) + "-of-" +
            std::to_string(*shard_count) + ")");
      }
    }
  }
  if (o.expect_dir) report.missing = unrecorded(*o.expect_dir, o.recursive, merged, shard_count);

  // Write: the journal, the CSV from it, then the summary, each atomically.
  undo.writing = true;
  const Totals totals = write_merged(folders, merged, fields, out, report);
  report.records = static_cast<int>(totals.records);
  report.ok = totals.ok;
  report.failed = totals.failed;

  const Summary summary = merged_summary(folders, totals, hashes, report, o.expect_dir.has_value());
  io::write_file_atomic(out.file(out_files::kSummary), summary.to_json().dump(2) + "\n");
  return report;
}

}  // namespace docsift::batch
