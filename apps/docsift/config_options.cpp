#include "config_options.h"

#include <filesystem>
#include <optional>

#include "docsift/batch/ocr_reader.h"

namespace docsift::cli {

void ConfigOptions::add_to(CLI::App* app, const std::string& note) {
  app->add_option("--config", file_,
                  "YAML config file (see configs/; default: the built-in defaults)" + note);
  app->add_option("--set", overrides_,
                  "Override a config key, e.g. --set memory.budget_gb=16 (repeatable; applied in "
                  "order, after --config)" +
                      note)
      ->take_all()
      ->allow_extra_args(false);
}

config::Config ConfigOptions::load(const std::vector<std::string>& shortcuts) const {
  std::optional<std::filesystem::path> file;
  if (!file_.empty()) file = file_;
  std::vector<std::string> overrides = overrides_;
  overrides.insert(overrides.end(), shortcuts.begin(), shortcuts.end());
  // ocr.recognizer: auto is resolved by what this build has (batch/ocr_reader.h).
  return config::load(file, overrides, {batch::second_recognizer_available});
}

config::Config ConfigOptions::load_as_written() const {
  std::optional<std::filesystem::path> file;
  if (!file_.empty()) file = file_;
  return config::load_as_written(file, overrides_);
}

}  // namespace docsift::cli
