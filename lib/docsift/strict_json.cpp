#include "docsift/strict_json.h"

#include <fstream>
#include <unordered_set>
#include <sstream>
#include <vector>

#include "docsift/error.h"

namespace docsift {

using nlohmann::json;

json parse_json_strict(std::string_view text, const std::string& label, int max_depth) {
  std::vector<std::unordered_set<std::string>> keys_per_object;
  std::string duplicate;
  bool too_deep = false;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_depth) too_deep = true;
    switch (event) {
      case json::parse_event_t::object_start:
        keys_per_object.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys_per_object.empty()) keys_per_object.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys_per_object.empty() &&
            !keys_per_object.back().insert(parsed.get<std::string>()).second &&
            duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return !too_deep;  // false discards the value: nothing too deep is kept
  };
  json root;
  try {
    root = json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::exception& e) {
    throw FileError(label + ": malformed JSON: " + e.what());
  }
  if (too_deep) {
    throw FileError(label + ": JSON nests deeper than " + std::to_string(max_depth) +
                    " levels, which this file never needs");
  }
  if (!duplicate.empty()) {
    throw FileError(label + ": key '" + duplicate + "' appears more than once");
  }
  return root;
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open for reading");
  std::string text;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw FileError(path + ": cannot determine the file size");
  if (static_cast<std::size_t>(size) > max_bytes) {
    throw FileError(path + ": " + std::to_string(static_cast<long long>(size)) +
                    " bytes is larger than the " + std::to_string(max_bytes) +
                    "-byte limit for this kind of file");
  }
  text.resize(static_cast<std::size_t>(size));
  in.seekg(0);
  in.read(text.data(), size);
  if (!in) throw FileError(path + ": read failed");
  return text;
}

json read_json_file(const std::string& path, int max_depth, std::size_t max_bytes) {
  return parse_json_strict(read_text_file(path, max_bytes), path, max_depth);
}

}  // namespace docsift
