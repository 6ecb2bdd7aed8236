#include <cmath>
#include <iostream>
#include <optional>

#include "checks.h"
#include "commands.h"
#include "config_options.h"
#include "docsift/config/config.h"
#include "docsift/config/derive.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
#include "docsift/memory/plan.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/inspect.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

struct PlanOptions {
  std::optional<double> budget_gb;
  std::optional<int> tiles, max_new_tokens;
  ConfigOptions config;
};

// The plan for the largest image the config allows (the family says how many tiles that is) and the
// config's field prompt, encoded with the model's own tokenizer.
memory::MemoryPlan plan_for(const std::string& model_dir, const PlanOptions& o) {
  const config::Config cfg = o.config.load();
  const family::LoadedModel engine(model_dir, /*require_weights=*/false,
                                   config::family_options(cfg));
  const extract::FieldSchema schema = extract::load_field_schema(cfg.extraction.fields);
  const std::int64_t tiles = o.tiles.value_or(engine.family().plan_tiles(cfg.model.max_tiles));
  const auto prompt_tokens = static_cast<std::int64_t>(
      engine.chat()
          .encode(extract::build_prompt(schema),
                  engine.family().plan_prompt_units(static_cast<int>(tiles)))
          .size());
  const int max_new_tokens = o.max_new_tokens.value_or(
      config::generation_options(cfg, engine.family().auto_max_new_tokens(schema), {})
          .max_new_tokens);
  // A card of that size: the CUDA context comes out of it too (run reads what is left instead).
  const std::optional<double> budget = o.budget_gb ? o.budget_gb : cfg.memory.budget_gb;
  std::optional<std::uint64_t> budget_bytes;
  if (budget)
    budget_bytes = static_cast<std::uint64_t>(std::llround(*budget * 1024.0 * 1024.0 * 1024.0));
  return memory::plan_memory(config::plan_request(cfg, engine.memory_shape(), tiles, prompt_tokens,
                                                  max_new_tokens, budget_bytes,
                                                  budget ? memory::kCudaContextEstimate : 0));
}

}  // namespace

Command add_inspect_command(CLI::App& root) {
  struct Options {
    std::string model_dir;
    bool json = false;
    PlanOptions plan;
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
         "--budget-gb", options->plan.budget_gb,
         "Print the memory plan per tier for a device with this many GiB (e.g. 16 for a V100)")
      ->check(at_least(0.1, /*whole=*/false));
  app->add_option("--tiles", options->plan.tiles,
                  "Plan for this many image tiles (default: the most max_tiles allows: InternVL3 "
                  "adds a thumbnail, Llama 3.2 Vision takes at most 4)")
      ->check(CLI::Range(1, 64));
  app->add_option("--max-new-tokens", options->plan.max_new_tokens,
                  "Plan for this many new tokens (default: config, else auto from the field count)")
      ->check(CLI::Range(1, 1 << 20));
  options->plan.config.add_to(app, "; implies the plan");
  return {app, [options] {
            const model::Checkpoint checkpoint(options->model_dir, /*require_weights=*/false);
            const auto summary =
                model::summarize(checkpoint, family::tensor_parts(checkpoint.config()));
            const PlanOptions& po = options->plan;
            const bool want_plan =
                po.budget_gb || po.tiles || po.max_new_tokens || po.config.given();
            std::optional<memory::MemoryPlan> plan;
            if (want_plan) {
              plan = plan_for(options->model_dir, options->plan);
            }
            if (options->json) {
              nlohmann::json out = model::to_json(summary);
              if (plan) out["memory_plan"] = memory::to_json(*plan);
              std::cout << out.dump(2) << '\n';
            } else {
              std::cout << model::to_text(summary);
              if (plan) std::cout << '\n' << memory::to_text(*plan);
            }
            return kExitOk;
          }};
}

}  // namespace docsift::cli
