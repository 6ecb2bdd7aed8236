// summary.json, typed (record.h): written and read back here once.
#include <string>

#include "docsift/error.h"
#include "docsift/journal/get_or.h"
#include "docsift/journal/record.h"

namespace docsift::journal {
namespace {

using json = nlohmann::json;
using detail::get_or;

json opt(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json shard_json(const Summary::ShardInfo& s, bool run) {
  json j = {{"index", s.index}, {"count", s.count}};
  if (run) j["scanned_all_shards"] = s.scanned_all_shards;
  return j;
}

// --isolate worker's counts; the mode alone without it.
json isolation_json(const Summary::Isolation& i) {
  if (i.mode != "worker") return {{"mode", i.mode}};
  return {{"mode", "worker"},
          {"workers_started", i.workers_started},
          {"recycles", i.recycles},
          {"crashes", i.crashes},
          {"timeouts", i.timeouts},
          {"supervisor_mapped_libcuda", i.supervisor_mapped_libcuda},
          {"supervisor_mapped_gpu_devices", i.supervisor_mapped_gpu_devices}};
}

}  // namespace

json Summary::to_json() const {
  json j;
  if (merged_from) {
    j["images"] = {{"ok", ok}, {"failed", failed}, {"recorded", recorded}};
    json from = json::array();
    for (const MergedFolder& f : *merged_from) {
      from.push_back({{"folder", f.folder},
                      {"records", f.records},
                      {"shard", f.shard ? shard_json(*f.shard, false) : json(nullptr)},
                      {"config_hashes", f.config_hashes},
                      {"model", f.model}});
    }
    j["merged_from"] = from;
    j["config_hashes"] = config_hashes;
    j["duplicates"] = duplicates;
    j["unfinished"] = unfinished;
    j["missing"] = missing ? json(*missing) : json(nullptr);
    j["complete"] = complete;
  } else {
    j["docsift_version"] = docsift_version;
    j["started_at"] = started_at;
    j["finished_at"] = finished_at;
    j["inputs"] = inputs;
    j["images"] = {{"scanned", scanned},
                   {"pages", pages},
                   {"ok", ok},
                   {"failed", failed},
                   {"gone", gone},
                   {"pending", pending},
                   {"found", found},
                   {"this_run", this_run},
                   {"retried", retried},
                   {"changed", changed},
                   {"resumed_from_journal", resumed_from_journal}};
    json failures = json::array();
    for (const auto& f : failed_files) failures.push_back({{"file", f.file}, {"error", f.error}});
    j["failed_files"] = {{"count", failed}, {"listed", failures}};
    j["shard"] = shard ? shard_json(*shard, true) : json(nullptr);
    j["engine"] = engine;
    j["model"] = model;
    j["device"] = device;
    j["isolation"] = isolation_json(isolation);
    j["config_hash"] = config_hash;
    j["earlier_config_hashes"] = earlier_config_hashes;
    json skipped = json::array();
    for (const auto& f : skipped_files) {
      skipped.push_back({{"file", f.file}, {"reason", f.reason}, {"unreadable", f.unreadable}});
    }
    j["skipped_files"] = skipped;
    j["interrupted"] = opt(interrupted);
    j["throughput"]["wall_seconds_this_run"] = wall_seconds_this_run;
  }
  j["tiers"] = tiers;
  j["throughput"]["seconds_per_image"] = seconds_per_image;
  j["throughput"]["model_seconds"] = model_seconds;
  j["throughput"]["overhead_seconds"] = overhead_seconds;
  j["throughput"]["generated_tokens"] = generated_tokens;
  // Bytes are whole numbers: a float here made "1.2345e+09" out of a byte count.
  j["memory_high_water"] = {{"device_peak_allocated", device_peak_allocated},
                            {"host_peak_rss", host_peak_rss}};
  if (review) {
    j["review"] = {{"pages", review->pages},
                   {"pages_accepted", review->pages_accepted},
                   {"fields_accepted", review->fields_accepted},
                   {"fields_to_review", review->fields_to_review}};
  }
  if (corrections)
    j["corrections"] = {{"pages", corrections->pages}, {"fields", corrections->fields}};
  if (agreement) {
    j["agreement"] = {{"values", agreement->values},
                      {"agreed", agreement->agreed},
                      {"respelled", agreement->respelled}};
  }
  return j;
}

Summary Summary::from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw FileError(where + ": not a JSON object");
  Summary s;
  const json images =
      j.contains("images") && j["images"].is_object() ? j["images"] : json::object();
  s.scanned = get_or<int>(images, "scanned", 0, where);
  s.pages = get_or<int>(images, "pages", 0, where);
  s.ok = get_or<int>(images, "ok", 0, where);
  s.failed = get_or<int>(images, "failed", 0, where);
  s.gone = get_or<int>(images, "gone", 0, where);
  s.pending = get_or<int>(images, "pending", 0, where);
  s.found = get_or<int>(images, "found", 0, where);
  s.this_run = get_or<int>(images, "this_run", 0, where);
  s.resumed_from_journal = get_or<int>(images, "resumed_from_journal", 0, where);
  s.recorded = get_or<int>(images, "recorded", 0, where);
  if (j.contains("shard") && j["shard"].is_object()) {
    s.shard = ShardInfo{get_or<int>(j["shard"], "index", 0, where),
                        get_or<int>(j["shard"], "count", 0, where),
                        get_or<int>(j["shard"], "scanned_all_shards", 0, where)};
  }
  s.docsift_version = get_or<std::string>(j, "docsift_version", "", where);
  s.started_at = get_or<std::string>(j, "started_at", "", where);
  s.finished_at = get_or<std::string>(j, "finished_at", "", where);
  if (j.contains("inputs") && j["inputs"].is_array()) {
    for (const json& input : j["inputs"]) {
      if (!input.is_string()) throw FileError(where + ": inputs: not a list of strings");
      s.inputs.push_back(input.get<std::string>());
    }
  }
  if (j.contains("throughput") && j["throughput"].is_object()) {
    s.wall_seconds_this_run = get_or<double>(j["throughput"], "wall_seconds_this_run", 0.0, where);
  }
  s.engine = get_or<std::string>(j, "engine", "", where);
  s.model = get_or<std::string>(j, "model", "", where);
  s.device = get_or<std::string>(j, "device", "", where);
  s.config_hash = get_or<std::string>(j, "config_hash", "", where);
  if (j.contains("interrupted") && j["interrupted"].is_string())
    s.interrupted = j["interrupted"].get<std::string>();
  if (j.contains("merged_from") && j["merged_from"].is_array()) s.merged_from.emplace();
  if (j.contains("tiers") && j["tiers"].is_object()) {
    for (const auto& [tier, count] : j["tiers"].items())
      s.tiers[tier] = get_or<int>(j["tiers"], tier.c_str(), 0, where);
  }
  if (j.contains("review") && j["review"].is_object()) {
    const json& r = j["review"];
    s.review = Review{get_or<int>(r, "pages", 0, where), get_or<int>(r, "pages_accepted", 0, where),
                      get_or<std::int64_t>(r, "fields_accepted", 0, where),
                      get_or<std::int64_t>(r, "fields_to_review", 0, where)};
  }
  if (j.contains("corrections") && j["corrections"].is_object()) {
    s.corrections = Corrections{get_or<int>(j["corrections"], "pages", 0, where),
                                get_or<std::int64_t>(j["corrections"], "fields", 0, where)};
  }
  if (j.contains("agreement") && j["agreement"].is_object()) {
    const json& a = j["agreement"];
    s.agreement = Agreement{get_or<std::int64_t>(a, "values", 0, where),
                            get_or<std::int64_t>(a, "agreed", 0, where),
                            get_or<std::int64_t>(a, "respelled", 0, where)};
  }
  return s;
}

}  // namespace docsift::journal
