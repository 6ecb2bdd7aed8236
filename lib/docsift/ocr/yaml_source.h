// The OCR engine's fitted parameter files (calibration.h's confidences, finder.h's field finder):
// each is compiled in as builtin:NAME or read from a YAML file a user names, and read defensively,
// every problem a docsift::ConfigError at "source:line:column" that names the file showing the
// layout. Shared so that the two files are opened and checked one way.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docsift::ocr {

// What a parameter file is: its built-in name and text, the setting that names another file, and
// the file in configs/ whose layout a message points to.
struct YamlSource {
  std::string_view builtin_name;  // "builtin:ocr-calibration"
  std::string_view builtin_text;
  std::string_view setting;  // "ocr.calibration"
  std::string_view layout;   // "configs/fields/ocr-calibration.yaml"
};

// The YAML of `source`: the built-in text, or a regular file (a device or a FIFO would never end
// its read). Throws ConfigError naming the source and the problem.
YAML::Node load_yaml_source(const std::string& source, const YamlSource& kind);

// Reads a parameter file's nodes; every problem is a ConfigError at "source:line:column".
class YamlReader {
 public:
  YamlReader(std::string source, std::string_view layout)
      : source_(std::move(source)), layout_(layout) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& problem) const;
  // A mapping's entries in order, each key a plain name given once.
  std::vector<std::pair<std::string, YAML::Node>> entries(const YAML::Node& map,
                                                          const std::string& key) const;
  // A finite number: "nan", ".inf", "1e999", "0.5x" or a list are refused, each at its place.
  double number(const YAML::Node& n, const std::string& key) const;
  std::string word(const YAML::Node& n, const std::string& key) const;
  // `map`'s `key`, which must be there.
  YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& path) const;
  // Fails at the first of `map`'s keys that is not among `known` ("intercept and weights are").
  void only(const YAML::Node& map, const std::string& path,
            const std::vector<std::string>& known) const;
  // "source:line:column" of `n`, or the source where the node has no mark.
  std::string place(const YAML::Node& n) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::string_view layout_;
};

}  // namespace docsift::ocr
