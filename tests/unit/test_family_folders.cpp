// A model family lives in its folder (docs/architecture.md, "Where a change lands"): outside
// lib/docsift/family/<name>/ only the registry (registry.cpp, and settings.cpp for its config keys)
// names a family in code. Comments and string literals are left out (help text may mention a
// model); identifiers are what make a layer depend on a family.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

// `text` without // and /* */ comments, string and character literals (raw strings included).
std::string code_only(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
    } else if (text.compare(i, 2, "R\"") == 0) {
      const std::size_t open = text.find('(', i);
      const std::string close = std::string(")").append(text, i + 2, open - i - 2).append("\"");
      const std::size_t end = text.find(close, open);
      i = end == std::string::npos ? text.size() : end + close.size();
      out += "\"\"";
    } else if (text[i] == '"' || text[i] == '\'') {
      const char quote = text[i++];
      while (i < text.size() && text[i] != quote) i += text[i] == '\\' ? 2 : 1;
      ++i;
      out += "\"\"";
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace

TEST_CASE("each family is named in code only by its own folder and the registry") {
  const fs::path root = fs::path(DOCSIFT_SOURCE_DIR);
  // Each family's folder and the identifiers that name it.
  const std::map<std::string, std::regex> families{
      {"internvl", std::regex("internvl", std::regex::icase)},
      {"mllama", std::regex("mllama|llama32", std::regex::icase)},
      {"qwen25vl", std::regex("qwen25vl|qwen2_5_vl", std::regex::icase)},
      {"qwen3vl", std::regex("qwen3vl|qwen3_vl", std::regex::icase)}};
  const std::set<std::string> registry{"lib/docsift/family/registry.cpp",
                                       "lib/docsift/family/settings.cpp"};
  std::map<std::string, std::set<std::string>>
      outside;  // family → files naming it outside its folder
  int files = 0;
  for (const char* top : {"lib", "apps"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu")) continue;
      ++files;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      const std::string code = code_only(text.str());
      for (const auto& [name, pattern] : families) {
        if (rel.starts_with("lib/docsift/family/" + name + "/") || registry.count(rel) > 0)
          continue;
        if (std::regex_search(code, pattern)) outside[name].insert(rel);
      }
    }
  }
  CHECK(files > 100);
  for (const auto& [name, pattern] : families) {
    CAPTURE(name);
    std::string list;
    for (const auto& f : outside[name]) list += " " + f;
    MESSAGE(name << " named in code outside family/" << name
                 << "/ and the registry:" << (list.empty() ? " nowhere" : list));
    CHECK(outside[name].empty());
  }
  // The check itself: the registry does name every family, so the scan would see one.
  std::ifstream in(root / "lib/docsift/family/registry.cpp");
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& [name, pattern] : families)
    CHECK(std::regex_search(code_only(text.str()), pattern));
}
