#include "docsift/ocr/yaml_source.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include "docsift/error.h"

namespace docsift::ocr {

YAML::Node load_yaml_source(const std::string& source, const YamlSource& kind) {
  constexpr std::string_view kBuiltin = "builtin:";
  try {
    if (source.rfind(kBuiltin, 0) == 0) {
      if (source != kind.builtin_name)
        throw ConfigError(source + ": unknown built-in name (" + std::string(kind.builtin_name) +
                          " is)");
      return YAML::Load(std::string(kind.builtin_text));
    }
    if (std::error_code ec; !std::filesystem::is_regular_file(source, ec)) {
      throw ConfigError(
          source + ": " +
          (std::filesystem::exists(source, ec) ? "not a regular file" : "no such file") + "; " +
          std::string(kind.setting) + " names a file in " + std::string(kind.layout) + "'s layout");
    }
    return YAML::LoadFile(source);
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the file " + std::string(kind.setting) + " names");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
}

std::string YamlReader::place(const YAML::Node& n) const {
  const YAML::Mark mark = n.Mark();
  return mark.is_null() ? source_
                        : source_ + ":" + std::to_string(mark.line + 1) + ":" +
                              std::to_string(mark.column + 1);
}

void YamlReader::fail(const YAML::Node& at, const std::string& problem) const {
  throw ConfigError(place(at) + ": " + problem + " (" + std::string(layout_) +
                    " shows the layout)");
}

std::vector<std::pair<std::string, YAML::Node>> YamlReader::entries(const YAML::Node& map,
                                                                    const std::string& key) const {
  if (!map.IsMap()) fail(map, key + ": expected a mapping");
  std::vector<std::pair<std::string, YAML::Node>> out;
  std::set<std::string> seen;
  for (const auto& item : map) {
    if (!item.first.IsScalar()) fail(item.first, key + ": expected a name");
    const std::string name = item.first.Scalar();
    if (!seen.insert(name).second) fail(item.first, key + "." + name + ": given twice");
    out.emplace_back(name, item.second);
  }
  return out;
}

double YamlReader::number(const YAML::Node& n, const std::string& key) const {
  if (!n.IsScalar()) fail(n, key + ": expected a number");
  const std::string& text = n.Scalar();
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    fail(n, key + ": expected a finite number, got '" + text + "'");
  }
  return value;
}

std::string YamlReader::word(const YAML::Node& n, const std::string& key) const {
  if (!n.IsScalar() || n.Scalar().empty()) fail(n, key + ": expected a name");
  return n.Scalar();
}

YAML::Node YamlReader::required(const YAML::Node& map, const std::string& key,
                                const std::string& path) const {
  const YAML::Node n = map[key];
  if (!n) fail(map, path + ": has no " + key);
  return n;
}

void YamlReader::only(const YAML::Node& map, const std::string& path,
                      const std::vector<std::string>& known) const {
  for (const auto& [key, value] : entries(map, path)) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (std::size_t i = 0; i < known.size(); ++i)
      list += (i == 0 ? "" : i + 1 == known.size() ? " and " : ", ") + known[i];
    fail(value, (path == "the file" ? "" : path + ".") + key + ": unknown key (" + list +
                    (known.size() == 1 ? " is)" : " are)"));
  }
}

}  // namespace docsift::ocr
