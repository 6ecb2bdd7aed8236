// `docsift inspect`: a model folder described, and its memory plan; the work is commands::inspect
// (docsift/commands/inspect.h).
#include <iostream>
#include <memory>

#include "checks.h"
#include "commands.h"
#include "config_options.h"
#include "docsift/commands/inspect.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_inspect_command(CLI::App& root) {
  struct Options : commands::InspectRequest {
    ConfigOptions config;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app =
      root.add_subcommand("inspect",
                          "Describe a model folder from config.json and the safetensors headers "
                          "(no weights are read); a folder with config.json and the tokenizer but "
                          "no weight files can be planned before downloading them");
  app->add_option("MODEL_DIR", options->model_dir, "Hugging Face model folder")->required();
  app->add_flag("--json", options->json, "Print JSON instead of a table (default: table)");
  app->add_option(
         "--budget-gb", options->budget_gb,
         "Print the memory plan per tier for a device with this many GiB (e.g. 16 for a V100)")
      ->check(at_least(0.1, /*whole=*/false));
  app->add_option("--tiles", options->tiles,
                  "Plan for this many image tiles (default: the most max_tiles allows: InternVL3 "
                  "adds a thumbnail, Llama 3.2 Vision takes at most 4)")
      ->check(CLI::Range(1, 64));
  app->add_option("--max-new-tokens", options->max_new_tokens,
                  "Plan for this many new tokens (default: config, else auto from the field count)")
      ->check(CLI::Range(1, 1 << 20));
  options->config.add_to(app, "; implies the plan");
  return {app, [options] {
            options->config_given = options->config.given();
            commands::inspect(
                *options, [&] { return options->config.load(); }, std::cout);
            return kExitOk;
          }};
}

}  // namespace docsift::cli
