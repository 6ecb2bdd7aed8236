#include "docsift/config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <utility>

#include "docsift/config/fields.h"
#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"

namespace docsift::config {

namespace {

const Field* find_field(std::string_view key) {
  for (const auto& f : schema()) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// A section is any proper prefix of a key: "model", "memory", "memory.worker".
bool is_section(std::string_view path) {
  for (const auto& f : schema()) {
    if (f.key.size() > path.size() && f.key.starts_with(path) && f.key[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

std::string unknown_key_message(std::string_view path) {
  std::set<std::string> candidates;
  for (const auto& f : schema()) {
    candidates.insert(std::string(f.key));
    for (auto dot = f.key.find('.'); dot != std::string_view::npos;
         dot = f.key.find('.', dot + 1)) {
      candidates.insert(std::string(f.key.substr(0, dot)));
    }
  }
  const std::string best = closest_match(path, {candidates.begin(), candidates.end()});
  std::string msg = "unknown key";
  if (!best.empty()) msg += " (did you mean " + best + "?)";
  msg += "; `docsift config` lists every key";
  return msg;
}

void apply_map(Config& config, const YAML::Node& map, const std::string& prefix,
               const std::string& source) {
  std::set<std::string> seen;
  for (const auto& item : map) {
    const YAML::Node key_node = item.first;
    const YAML::Node value = item.second;
    Where where{source, &key_node, true};
    if (!key_node.IsScalar())
      fail(where, prefix.empty() ? "(top level)" : prefix, "keys must be plain names");
    const std::string path = prefix.empty() ? key_node.Scalar() : prefix + "." + key_node.Scalar();
    if (!seen.insert(key_node.Scalar()).second) fail(where, path, "key appears twice");
    if (const Field* field = find_field(path)) {
      Where value_where{source, &value, true};
      field->set(config, value, value_where);
      config.keys_given.insert(path);
    } else if (is_section(path)) {
      if (value.IsNull()) continue;  // "memory:" with nothing under it keeps the defaults
      if (!value.IsMap()) fail(where, path, "expected a mapping of keys, got " + shown(value));
      apply_map(config, value, path, source);
    } else {
      fail(where, path, unknown_key_message(path));
    }
  }
}

}  // namespace

void apply_file(Config& config, const std::filesystem::path& file) {
  const std::string source = file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status))
    throw ConfigError(source + ": config file not found (check the --config path)");
  if (std::filesystem::is_directory(status)) {
    throw ConfigError(
        source +
        ": is a folder, not a config file; give a YAML file such as configs/internvl3-8b.yaml");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw ConfigError(source +
                      ": is not a regular file (a device or a pipe); give a YAML config file");
  }
  // Every real config is a few KB; parsing a huge one costs seconds and gigabytes before the first
  // unknown key could be reported.
  constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size > kMaxConfigBytes) {
    throw ConfigError(source + ": " + std::to_string(size) +
                      " bytes; a config file may be at most 1 MiB (is this the right file?)");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(source);
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the config file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return;  // an empty file means all defaults
  if (!root.IsMap()) {
    throw ConfigError(source +
                      ": expected a mapping of sections (model, generation, memory, input, "
                      "extraction, ocr, output) at the top level");
  }
  apply_map(config, root, "", source);
  // A relative path in a config file means a place next to the file, wherever docsift is started
  // (a cron job runs from the home folder); on the command line it means the working directory.
  const std::filesystem::path base = std::filesystem::absolute(file).parent_path();
  const auto resolve = [&](const char* section, const char* key, std::string& value) {
    const YAML::Node s = root[section];
    if (!s.IsMap() || !s[key] || value.empty() || value.rfind("builtin:", 0) == 0) return;
    if (std::filesystem::path(value).is_relative())
      value = (base / value).lexically_normal().string();
  };
  resolve("model", "path", config.model.path);
  resolve("extraction", "fields", config.extraction.fields);
  resolve("ocr", "rules", config.ocr.rules);
  resolve("ocr", "known_sellers", config.ocr.known_sellers);
  resolve("ocr", "calibration", config.ocr.calibration);
  resolve("ocr", "finder", config.ocr.finder);
  resolve("output", "dir", config.output.dir);
}

void apply_override(Config& config, std::string_view assignment) {
  const std::string source = "--set " + std::string(assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw ConfigError(source + ": expected key.path=value, e.g. --set memory.budget_gb=16");
  }
  const std::string key(assignment.substr(0, eq));
  const std::string value_text(assignment.substr(eq + 1));
  const Where where{source, nullptr, false};
  const Field* field = find_field(key);
  if (field == nullptr) {
    if (is_section(key)) {
      fail(where, key, "is a section; set one of its keys, e.g. " + key + ".<key>=value");
    }
    fail(where, key, unknown_key_message(key));
  }
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::ParserException& e) {
    fail(where, key, "value is not valid YAML: " + e.msg);
  }
  field->set(config, value, where);
  config.keys_given.insert(key);
}

namespace {

// The settings that name fields, checked against the schema the config reads (extraction.fields)
// once everything is applied, whatever set them: a misspelt name would otherwise be kept silently
// and its field judged by another threshold. The shipped thresholds are not checked (a schema of
// one's own need not have TOTAL).
void check_field_names(const Config& config) {
  const bool own_review = config.keys_given.count("review.fields") != 0;
  if (!own_review && config.gate.min_field.empty()) return;
  const extract::FieldSchema schema = extract::load_field_schema(config.extraction.fields);
  if (own_review) {
    for (const auto& [field, threshold] : config.review.fields)
      schema.require(field, "review.fields");
  }
  for (const auto& [field, least] : config.gate.min_field) schema.require(field, "gate.min_field");
}

}  // namespace

namespace {

// Defaults, then the file, then the overrides: the settings as given.
Config as_given(const std::optional<std::filesystem::path>& file,
                const std::vector<std::string>& overrides) {
  Config config;
  if (file) apply_file(config, *file);
  for (const auto& assignment : overrides) apply_override(config, assignment);
  return config;
}

// What follows from the settings, whatever resolved them: the thresholds, and the names checked.
Config finished(Config config) {
  // The thresholds mean what they say (docs/confidence.md, "Thresholds"): one given alone is every
  // field's, and the shipped per-field ones are those of the engine that makes the confidences.
  if (config.keys_given.count("review.fields") == 0) {
    if (config.keys_given.count("review.threshold") != 0) {
      config.review.fields.clear();
    } else if (config.ocr.recognizer == "both") {
      config.review.fields = ReviewConfig::second_recognizer_fields();
    }
  }
  check_field_names(config);
  return config;
}

}  // namespace

Config load_as_written(const std::optional<std::filesystem::path>& file,
                       const std::vector<std::string>& overrides) {
  return finished(as_given(file, overrides));
}

Config load(const std::optional<std::filesystem::path>& file,
            const std::vector<std::string>& overrides, const Abilities& abilities) {
  Config config = as_given(file, overrides);
  // The engine, resolved once here (a model folder given means the model reads the pages), and the
  // second recognizer by default where it is installed (docs/ocr.md): so that the config's hash, a
  // worker's config, the thresholds below and everything that reads the config see which it is.
  if (config.extraction.engine == Engine::Auto)
    config.extraction.engine = config.model.path.empty() ? Engine::Ocr : Engine::Vlm;
  if (config.ocr.recognizer == "auto" && abilities.second_recognizer) {
    const bool both = config.extraction.engine == Engine::Ocr &&
                      abilities.second_recognizer(config.ocr.recognizer_model);
    config.ocr.recognizer = both ? "both" : "tesseract";
  }
  return finished(std::move(config));
}

Config from_yaml(const std::string& yaml, const std::string& source) {
  Config config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return config;
  if (!root.IsMap())
    throw ConfigError(source + ": expected a mapping of sections at the top level");
  apply_map(config, root, "", source);
  return config;
}

std::string to_yaml(const Config& config) {
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& field : schema()) {
    // Walk/create the nested maps for "a.b.c".
    std::vector<std::string> parts;
    std::string_view rest = field.key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      parts.emplace_back(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    std::vector<YAML::Node> chain{root};
    for (const auto& part : parts) {
      YAML::Node child = chain.back()[part];
      if (!child.IsMap()) child = YAML::Node(YAML::NodeType::Map);
      chain.back()[part] = child;
      chain.push_back(chain.back()[part]);
    }
    chain.back()[std::string(rest)] = field.get(config);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::vector<KeyHelp> keys() {
  std::vector<KeyHelp> out;
  for (const auto& f : schema()) out.push_back({f.key, f.help});
  return out;
}

}  // namespace docsift::config
