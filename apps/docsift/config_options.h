// --config FILE and --set KEY=VALUE, wired the same way for every command that reads a config
// (run, generate, inspect, eval, config).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "docsift/config/config.h"

namespace docsift::cli {

class ConfigOptions {
 public:
  // Adds both options to `app`; `note` ends their help ("; implies the plan").
  void add_to(CLI::App* app, const std::string& note = "");
  // Defaults, then --config, then --set in order, then `shortcuts`: the command's own options as
  // key=value (--device becomes model.device=...), which win; ocr.recognizer: auto resolved by
  // what this build has. Throws ConfigError.
  config::Config load(const std::vector<std::string>& shortcuts = {}) const;
  // The same with nothing resolved by what this build has (ocr.recognizer: auto stays auto).
  config::Config load_as_written() const;
  bool given() const { return !file_.empty() || !overrides_.empty(); }
  const std::string& file() const { return file_; }  // --config, or ""

 private:
  std::string file_;
  std::vector<std::string> overrides_;
};

}  // namespace docsift::cli
