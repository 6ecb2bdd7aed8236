#include <iostream>
#include <optional>

#include "commands.h"
#include "docsift/config/config.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_config_command(CLI::App& root) {
  struct Options {
    std::string file;
    std::vector<std::string> overrides;
    bool keys = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "config", "Print the effective configuration (defaults, then --config, then --set) as YAML");
  app->add_option("--config", options->file, "YAML config file (default: none, built-in defaults)");
  app->add_option("--set", options->overrides,
                  "Override one key, e.g. --set memory.budget_gb=16 (repeatable; applied in order)")
      ->take_all()
      ->allow_extra_args(false);
  app->add_flag("--keys", options->keys, "List every key with its meaning instead");
  return {app, [options] {
            if (options->keys) {
              for (const auto& [key, help] : config::keys()) {
                std::cout << key << std::string(key.size() < 36 ? 36 - key.size() : 1, ' ') << help << '\n';
              }
              return kExitOk;
            }
            std::optional<std::filesystem::path> file;
            if (!options->file.empty()) file = options->file;
            std::cout << config::to_yaml(config::load(file, options->overrides));
            return kExitOk;
          }};
}

}  // namespace docsift::cli
