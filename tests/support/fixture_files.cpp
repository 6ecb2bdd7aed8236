#include "support/fixture_files.h"

#include "docsift/io/csv.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace docsift::testing {

void copy_with_config(const std::filesystem::path& from, const std::filesystem::path& to,
                      const std::function<void(nlohmann::json&)>& edit) {
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator(from)) {
    fs::copy(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
  }
  nlohmann::json config = nlohmann::json::parse(std::ifstream(to / "config.json"));
  edit(config);
  std::ofstream(to / "config.json") << config.dump(2);
}

std::vector<nlohmann::json> journal_lines(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::map<std::string, nlohmann::json> latest_records(const std::filesystem::path& out) {
  std::map<std::string, nlohmann::json> pages;
  for (nlohmann::json& record : journal_lines(out / "results.jsonl")) {
    const std::string file = record["file"].get<std::string>();  // before the record moves
    pages[file] = std::move(record);
  }
  return pages;
}

std::set<std::string> list_lines(const std::filesystem::path& path) {
  std::set<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.front() != '#') lines.insert(line);
  return lines;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::map<std::string, std::map<std::string, std::string>> read_ground_truth(
    const std::filesystem::path& path) {
  const auto t = docsift::io::read_csv(path);
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (const auto& row : t.rows) {
    for (std::size_t c = 1; c < row.size(); ++c) rows[row[0]][t.header[c]] = row[c];
  }
  return rows;
}

std::string samples_truth(const std::map<std::string, std::string>& pages) {
  const std::string all =
      file_bytes(std::filesystem::path(DOCSIFT_SOURCE_DIR) / "samples" / "ground_truth.csv");
  std::size_t at = all.find('\n') + 1;
  std::string out = all.substr(0, at);
  while (at < all.size()) {
    const std::size_t end = std::min(all.find('\n', at), all.size());
    const std::string line = all.substr(at, end - at);
    const auto page = pages.find(line.substr(0, line.find(',')));
    if (page != pages.end()) out += page->second + line.substr(line.find(',')) + "\n";
    at = end + 1;
  }
  return out;
}

}  // namespace docsift::testing
