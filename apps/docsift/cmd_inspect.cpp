#include <iostream>

#include "commands.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/inspect.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_inspect_command(CLI::App& root) {
  struct Options {
    std::string model_dir;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "inspect", "Describe a model folder from config.json and the safetensors headers (no weights are read)");
  app->add_option("MODEL_DIR", options->model_dir, "Hugging Face model folder")->required();
  app->add_flag("--json", options->json, "Print JSON instead of a table (default: table)");
  return {app, [options] {
            const model::Checkpoint checkpoint(options->model_dir);
            const auto summary = model::summarize(checkpoint);
            if (options->json) {
              std::cout << model::to_json(summary).dump(2) << '\n';
            } else {
              std::cout << model::to_text(summary);
            }
            return kExitOk;
          }};
}

}  // namespace docsift::cli
