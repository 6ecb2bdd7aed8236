#include <iostream>
#include <optional>

#include "commands.h"
#include "config_options.h"
#include "docsift/config/config.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_config_command(CLI::App& root) {
  struct Options {
    ConfigOptions config;
    bool keys = false;
    bool as_written = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "config", "Print the effective configuration (defaults, then --config, then --set) as YAML");
  options->config.add_to(app);
  app->add_flag("--keys", options->keys, "List every key with its meaning instead");
  app->add_flag("--as-written", options->as_written,
                "Print the settings as given, before what this build resolves (extraction.engine: "
                "auto is ocr without a model, vlm with one; ocr.recognizer: auto is both where the "
                "second recognizer is installed)");
  return {app, [options] {
            if (options->keys) {
              for (const auto& [key, help] : config::keys()) {
                std::cout << key << std::string(key.size() < 36 ? 36 - key.size() : 1, ' ') << help
                          << '\n';
              }
              return kExitOk;
            }
            std::cout << config::to_yaml(options->as_written ? options->config.load_as_written()
                                                             : options->config.load());
            return kExitOk;
          }};
}

}  // namespace docsift::cli
