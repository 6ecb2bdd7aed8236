#include "support/fixture_files.h"

#include "docsift/io/csv.h"

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

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::map<std::string, std::map<std::string, std::string>> read_ground_truth(const std::filesystem::path& path) {
  const auto t = docsift::io::read_csv(path);
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (const auto& row : t.rows) {
    for (std::size_t c = 1; c < row.size(); ++c) rows[row[0]][t.header[c]] = row[c];
  }
  return rows;
}

}  // namespace docsift::testing
