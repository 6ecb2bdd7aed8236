// summary.json as every test reads it: parsed, and its page counts checked to add up as
// docs/run.md ("Outputs") defines them, so that each summary the suite writes is checked:
//   a run's:   images.pages == ok + failed + gone + pending, failed_files.count == failed;
//   a merge's: images.recorded == ok + failed.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/fixture_files.h"

#include <doctest/doctest.h>

namespace docsift::testing {

// Checks the counts of a parsed summary.json (CHECKs, so a failing sum names the file).
inline void check_summary_counts(const nlohmann::json& summary, const std::string& where) {
  CAPTURE(where);
  REQUIRE(summary.contains("images"));
  const nlohmann::json& images = summary["images"];
  const auto count = [&](const char* key) { return images.value(key, -1); };
  if (summary.contains("merged_from")) {
    CHECK(count("recorded") == count("ok") + count("failed"));
    return;
  }
  for (const char* key : {"pages", "ok", "failed", "gone", "pending", "found", "scanned"}) {
    CAPTURE(key);
    CHECK(count(key) >= 0);
  }
  CHECK(count("pages") == count("ok") + count("failed") + count("gone") + count("pending"));
  CHECK(summary["failed_files"]["count"] == count("failed"));
}

// `path` (a summary.json) parsed, its counts checked.
inline nlohmann::json read_summary(const std::filesystem::path& path) {
  const std::string text = file_bytes(path);
  REQUIRE_MESSAGE(!text.empty(), path.string() << " is missing or empty");
  const nlohmann::json summary = nlohmann::json::parse(text);
  check_summary_counts(summary, path.string());
  return summary;
}

}  // namespace docsift::testing
