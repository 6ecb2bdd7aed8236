#include "docsift/batch/run_stages.h"

#include <algorithm>
#include <system_error>

#include "docsift/batch/agreement.h"
#include "docsift/batch/shard.h"
#include "docsift/batch/supervisor.h"
#include "docsift/device/footprint.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/io/journal.h"
#include "docsift/io/page_name.h"
#include "docsift/resilience/fault_spec.h"
#include "docsift/stopwatch.h"
#include "docsift/timestamp.h"
#include "docsift/version.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

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
  return candidates.empty()
             ? "its file is no longer among the inputs"
             : "its file is no longer there (" + display_name(candidates.front().string()) + ")";
}

}  // namespace

// Streams the journal's latest records (one per page) to `visit`, in journal order.
void for_each_latest(const fs::path& journal, const std::map<std::string, Latest>& latest,
                     const std::function<void(const Record&)>& visit) {
  io::read_journal(journal, [&](const nlohmann::json& json, std::uint64_t offset) {
    Record record = Record::from_journal(json);
    const auto it = latest.find(record.key());
    if (it != latest.end() && it->second.offset == offset) visit(record);
  });
}

void RunOutputs::rebuild_tables() {
  tables.rebuild([&](const std::function<void(const Record&)>& visit) {
    for_each_latest(journal.path(), latest, visit);
  });
}

RunOutputs open_outputs(const OutputFolder& folder, const config::Config& cfg,
                        const RunOptions& o) {
  const extract::FieldSchema schema = extract::load_field_schema(cfg.extraction.fields);
  std::map<std::string, Latest> latest;
  std::map<std::string, RecordName> failed_names;
  std::set<std::string> hashes;
  JournalSink journal =
      folder.journal(o.resume, [&](const nlohmann::json& json, std::uint64_t offset) {
        const Record record = Record::from_journal(json);
        latest[record.key()] =
            Latest{offset, record.status, record.source, record.corrections.has_value()};
        if (record.failed()) {
          failed_names[record.key()] = RecordName{record.file, record.file_bytes};
        } else {
          failed_names.erase(record.key());
        }
        hashes.insert(record.config_hash);
      });
  RunOutputs outputs{std::move(journal),
                     folder.tables(cfg.output.formats, schema.names()),
                     std::move(latest),
                     std::move(failed_names),
                     std::move(hashes),
                     config::hash(cfg),
                     schema};
  outputs.rebuild_tables();
  outputs.earlier_hashes.erase(outputs.hash);
  if (!outputs.earlier_hashes.empty() && !o.allow_config_change) {
    throw ConfigError(
        outputs.journal.path().string() + ": its records were made with another configuration (" +
        *outputs.earlier_hashes.begin() + ", now " + outputs.hash +
        "); resuming would mix their results. Use the same config and model, another --out, or "
        "--allow-config-change to mix them knowingly (summary.json then lists every config hash)");
  }
  return outputs;
}

// Each file's pages (one for an image): a PDF's count comes from its page tree, without
// rendering. A file that cannot be opened (damaged, encrypted, too many pages) is one failed
// record with the reason; the batch goes on. A page the journal has is skipped, unless its last
// record failed and --retry-failed, or its file is no longer the one that record read. Counts the
// pages found and skipped in `summary`.
Plan plan_pages(const std::vector<io::ScannedImage>& images,
                const std::map<std::string, Latest>& latest, const RunOptions& o,
                const io::PageOptions& page_opts, RunSummary& summary) {
  Plan plan;
  for (const auto& image : images) {
    plan.found_files.insert(image.relative);
    std::vector<Page> pages;
    try {
      const int count = io::page_count(image.path, page_opts, pinned_real(image, o.follow_links));
      for (int p = 0; p < count; ++p)
        pages.push_back({&image, p, io::page_name(image.relative, p, count), count, ""});
    } catch (const FileError& e) {
      pages.push_back({&image, 0, image.relative, 1, e.what()});
    }
    summary.found += static_cast<int>(pages.size());
    const std::optional<io::SourceStamp> now =
        io::stamp_file(image.path, /*with_hash=*/false, pinned_real(image, o.follow_links));
    std::optional<std::optional<std::string>> now_hash;  // read once per file, only if asked
    for (auto& page : pages) {
      const std::string key = record_name(page.name).key();
      plan.found_pages.insert(key);
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
          if (!now_hash)
            now_hash = io::content_hash(image.path, pinned_real(image, o.follow_links));
          if (*now_hash == before.hash) change.clear();
        }
        if (!change.empty() && earlier->second.corrected) {
          // A person's corrections are never undone by a reading of another file under its name.
          plan.kept_corrected.push_back(
              page.name + ": its file changed (" + change +
              "), but a person corrected its values (review apply); kept, not read again");
        } else if (!change.empty()) {
          redo = Redo{false, change};
        }
      }
      if (!is_new && !redo) {
        ++summary.skipped;
      } else if (!o.limit || static_cast<int>(plan.todo.size()) < *o.limit) {
        if (redo) plan.redo_reason[key] = *redo;
        plan.todo.push_back(std::move(page));
      }
    }
  }

  return plan;
}

// The failed pages whose files are gone (deleted, moved away; a PDF that lost the page): each
// gets a gone marker below, which takes it out of the failed set for good. Not when nothing at
// all was found and that is not normal: an unmounted share must not turn every failed page gone.
std::vector<std::pair<RecordName, std::string>> gone_pages(
    const std::map<std::string, RecordName>& failed_names, const Plan& plan, const RunOptions& o,
    const RunSummary& summary) {
  std::vector<std::pair<RecordName, std::string>> gone;  // name, why
  if (summary.scanned_all > 0 || o.allow_empty) {
    for (const auto& [key, name] : failed_names) {
      if (plan.found_pages.count(key) != 0) continue;
      Record named;
      named.file = name.file;
      named.file_bytes = name.file_bytes;
      const std::string relative = record_relative(named);
      if (o.shard && shard_of(std::string(io::file_of(relative)), o.shard->count) != o.shard->index)
        continue;
      std::string why = gone_reason(relative, plan.found_files, o.inputs);
      if (!why.empty()) gone.emplace_back(name, std::move(why));
    }
  }
  return gone;
}

void RunSummary::describe(Summary& out) const {
  out.scanned = scanned;
  out.pages = pages;
  out.found = found;
  out.gone = gone;
  out.pending = pending;
  out.this_run = processed;
  out.retried = retried;
  out.changed = changed;
  out.resumed_from_journal = skipped;
  if (!stopped.empty()) out.interrupted = stopped;
  out.wall_seconds_this_run = seconds;
}

// The summary covers the whole journal (this run and the runs it resumed): the latest record of
// each page, read back once more.
Summary summarise(const RunOutputs& outputs, const Plan& plan, const RunFacts& facts,
                  RunSummary& summary) {
  Summary out;
  for_each_latest(outputs.journal.path(), outputs.latest, [&](const Record& record) {
    summary.totals.add(record);
    if (record.failed() && out.failed_files.size() < Summary::kMaxFailedListed) {
      out.failed_files.push_back({record.file, record.error});
    }
  });
  const Totals& totals = summary.totals;
  summary.total_ok = totals.ok;
  summary.total_failed = totals.failed;
  // The pages found that have no counted record: left by --limit or a stop.
  for (const std::string& key : plan.found_pages) {
    const auto it = outputs.latest.find(key);
    if (it == outputs.latest.end() || !it->second.counts()) ++summary.pending;
  }
  summary.pages = totals.ok + totals.failed + summary.gone + summary.pending;
  summary.seconds = seconds_since(facts.run_start);
  totals.describe(out);
  summary.describe(out);
  out.docsift_version = version();
  out.started_at = facts.started_at;
  out.inputs = facts.o.named;
  if (facts.o.shard)
    out.shard = Summary::ShardInfo{facts.o.shard->index, facts.o.shard->count, summary.scanned_all};
  out.engine = config::to_string(facts.cfg.extraction.engine);
  out.model = facts.cfg.model.path;
  out.device = facts.device;
  if (facts.supervisor) {
    const WorkerStats& w = facts.supervisor->stats();
    summary.workers = w;
    out.isolation = {"worker",
                     w.started,
                     w.recycles,
                     w.crashes,
                     w.timeouts,
                     device::cuda_footprint().driver_library,
                     device::cuda_footprint().gpu_devices};
  }
  out.config_hash = outputs.hash;
  out.earlier_config_hashes.assign(outputs.earlier_hashes.begin(), outputs.earlier_hashes.end());
  for (const auto& f : facts.skipped_files) {
    out.skipped_files.push_back({display_name(f.relative), display_name(f.reason), f.unreadable});
  }
  out.finished_at = rfc3339_now();
  return out;
}

PageWritten write_page(const Record& record, const RecordName& name, RunOutputs& outputs) {
  // A record that supersedes a good one (its file changed) rebuilds the tables, so that the old
  // rows go.
  const auto earlier = outputs.latest.find(name.key());
  const bool supersedes_row =
      !outputs.tables.empty() && earlier != outputs.latest.end() && earlier->second.ok();
  try {
    outputs.journal.write(record);
    outputs.latest[name.key()] =
        Latest{outputs.journal.last_offset(), record.status, record.source};
  } catch (const io::JournalWriteError& e) {
    return {false,
            e.what()};  // the journal is intact up to its last complete record; --resume goes on
  }
  try {
    if (supersedes_row) {
      outputs.rebuild_tables();
    } else {
      outputs.tables.add(record);  // a row that cannot be written is cut back whole
    }
  } catch (const std::exception& e) {
    return {true, std::string(e.what()) + "; " + name.file +
                      " is journaled, its CSV row left for --resume"};
  }
  return {true, ""};
}

std::vector<io::ScannedImage> scan_pages(const RunOptions& o, RunSummary& summary,
                                         std::vector<io::SkippedFile>& skipped) {
  std::vector<io::ScannedImage> images = io::scan_inputs(
      o.inputs, o.recursive, &skipped, &summary.subfolders_not_read, o.follow_links);
  summary.scanned_all = static_cast<int>(images.size());
  if (o.shard) {
    const auto other_shard = [&](const std::string& relative) {
      return shard_of(relative, o.shard->count) != o.shard->index;
    };
    std::erase_if(images,
                  [&](const io::ScannedImage& image) { return other_shard(image.relative); });
    // A folder that cannot be read holds pages of every shard: each shard says so.
    std::erase_if(skipped, [&](const io::SkippedFile& f) {
      return !f.unreadable && other_shard(f.relative);
    });
  }
  summary.unreadable = static_cast<int>(std::count_if(
      skipped.begin(), skipped.end(), [](const io::SkippedFile& f) { return f.unreadable; }));
  summary.links_outside = static_cast<int>(std::count_if(
      skipped.begin(), skipped.end(), [](const io::SkippedFile& f) { return f.link_outside; }));
  summary.scanned = static_cast<int>(images.size());
  return images;
}

std::string write_agreement(RunOutputs& outputs, const config::ReviewConfig& review,
                            bool spelling) {
  PageCounts counts;
  for_each_latest(outputs.journal.path(), outputs.latest,
                  [&](const Record& record) { counts.add(record); });
  if (counts.empty()) return "";  // no page the engine marked (a model's run)
  // The records as they were counted: a record journaled below is not visited again.
  const std::map<std::string, Latest> counted = outputs.latest;
  const resilience::FaultPlan faults = resilience::FaultPlan::from_environment();
  constexpr const char* kCommand = "docsift run (pages that agree)";
  const std::string began = rfc3339_now();
  std::string stopped;
  int wrote = 0;
  for_each_latest(outputs.journal.path(), counted, [&](const Record& record) {
    if (!stopped.empty()) return;
    std::optional<Record> next = agreed(record, counts, review, outputs.schema, spelling);
    if (!next) return;
    // The record's own times: the count's, not the page's read (timings_s keeps those).
    next->started_at = began;
    next->finished_at = rfc3339_now();
    try {
      outputs.journal.write(*next);
    } catch (const io::JournalWriteError& e) {
      stopped = e.what();  // the journal is intact up to its last complete record
      return;
    }
    outputs.latest[next->key()] = Latest{outputs.journal.last_offset(), next->status, next->source,
                                         next->corrections.has_value()};
    resilience::fault_at(faults, resilience::FaultPoint::kApplied, ++wrote, kCommand);
  });
  if (wrote == 0) return stopped;
  try {
    outputs.rebuild_tables();
  } catch (const std::exception& e) {
    if (stopped.empty()) stopped = std::string(e.what()) + "; the tables are left for --resume";
  }
  resilience::fault_at(faults, resilience::FaultPoint::kRebuilt, 1, kCommand);
  return stopped;
}

std::string write_gone(const std::vector<std::pair<RecordName, std::string>>& gone,
                       RunOutputs& outputs, Progress& progress, RunSummary& summary) {
  for (const auto& [name, why] : gone) {
    Record marker = Record::gone_marker(name.file, name.file_bytes, why);
    marker.config_hash = outputs.hash;
    marker.finished_at = rfc3339_now();
    try {
      outputs.journal.write(marker);
    } catch (const io::JournalWriteError& e) {
      return e.what();
    }
    outputs.latest[name.key()] =
        Latest{outputs.journal.last_offset(), Record::Status::Gone, std::nullopt};
    ++summary.gone;
    progress.gone(marker);
  }
  return "";
}

}  // namespace docsift::batch
