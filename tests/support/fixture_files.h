// Small helpers the tests share for reading fixtures and outputs (no LibTorch: tensor_compare.h
// compares tensors): a fixture folder copied with its config.json edited, a journal read back line
// by line.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace docsift::testing {

// Copies every file of `from` into `to`, then rewrites to/config.json through `edit`.
void copy_with_config(const std::filesystem::path& from, const std::filesystem::path& to,
                      const std::function<void(nlohmann::json&)>& edit);

// Every line of a results.jsonl, parsed.
std::vector<nlohmann::json> journal_lines(const std::filesystem::path& path);

// Each page's latest record in a run folder's results.jsonl, by its "file".
std::map<std::string, nlohmann::json> latest_records(const std::filesystem::path& out);

// The lines of a list file (ocr.known_sellers' format) that are neither empty nor comments.
std::set<std::string> list_lines(const std::filesystem::path& path);

// A whole file as bytes ("" when it cannot be read).
std::string file_bytes(const std::filesystem::path& path);

// samples/ground_truth.csv's header and the rows of `pages` (a sample's file name → the name to
// write its row under), in the samples' order: the truth of an inbox made of copied samples.
std::string samples_truth(const std::map<std::string, std::string>& pages);

// A ground-truth CSV as image_file → field → value.
std::map<std::string, std::map<std::string, std::string>> read_ground_truth(
    const std::filesystem::path& path);

}  // namespace docsift::testing
