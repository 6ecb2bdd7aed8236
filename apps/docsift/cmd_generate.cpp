// `docsift generate`: one image, one prompt, for debugging and parity checks; the work is
// commands::generate (docsift/commands/generate.h).
#include <iostream>
#include <memory>

#include "commands.h"
#include "config_options.h"
#include "docsift/commands/generate.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

struct Options : commands::GenerateRequest {
  ConfigOptions config;
};

void add_options(CLI::App* app, Options& o) {
  app->add_option("--model", o.model, "Model folder (default: model.path from the config)");
  app->add_option("--image", o.image, "Image file")->required();
  app->add_option("--prompt", o.prompt,
                  "The question; \"<image>\" marks where the image goes (default: before it)")
      ->required();
  app->add_option("--max-new-tokens", o.max_new_tokens,
                  "Stop after this many tokens (default: config, else 256)");
  app->add_flag("--greedy", o.greedy,
                "Always take the most likely token (default when temperature is 0)");
  app->add_option("--temperature", o.temperature,
                  "Sampling temperature (default: config generation.temperature)");
  app->add_option("--top-p", o.top_p, "Nucleus sampling mass (default: config generation.top_p)");
  app->add_option("--seed", o.seed, "Sampling seed (default: config generation.seed)");
  app->add_option("--device", o.device, "cpu, cuda or cuda:N (default: config model.device)");
  app->add_option("--dtype", o.dtype, "float32, float16 or bfloat16 (default: config model.dtype)");
  app->add_option("--max-tiles", o.max_tiles, "Most image tiles (default: config model.max_tiles)");
  o.config.add_to(app);
  app->add_flag("--json", o.json, "Print JSON: text, ids, token counts, tiles and timings");
  app->add_flag("--no-stop", o.no_stop,
                "Ignore stop tokens and generate exactly --max-new-tokens (benchmarks)");
  app->add_flag(
      "--count-ops", o.count_ops,
      "With --json: count the LibTorch operators each decode step dispatches (host work per step)");
}

}  // namespace

Command add_generate_command(CLI::App& root) {
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "generate", "Run the model on one image with one prompt (debugging, parity)");
  add_options(app, *o);
  return {app, [o] {
            commands::generate(*o, o->config.load(commands::config_shortcuts(*o)),
                               batch::Log(std::cerr, g_log_format, /*quiet=*/false), std::cout);
            return kExitOk;
          }};
}

}  // namespace docsift::cli
