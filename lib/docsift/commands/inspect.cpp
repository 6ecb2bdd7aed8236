// `docsift inspect` (commands/inspect.h): the checkpoint's summary, and the memory plan a run of
// the config would make for it.
#include "docsift/commands/inspect.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "docsift/config/derive.h"
#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
#include "docsift/memory/plan.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/inspect.h"

namespace docsift::commands {
namespace {

// The plan for the largest image the config allows (the family says how many tiles that is) and the
// config's field prompt, encoded with the model's own tokenizer.
memory::MemoryPlan plan_for(const InspectRequest& o, const config::Config& cfg) {
  const family::LoadedModel engine(o.model_dir, /*require_weights=*/false,
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

void inspect(const InspectRequest& request, const std::function<config::Config()>& load,
             std::ostream& out) {
  const model::Checkpoint checkpoint(request.model_dir, /*require_weights=*/false);
  const auto summary = model::summarize(checkpoint, family::tensor_parts(checkpoint.config()));
  const bool want_plan =
      request.budget_gb || request.tiles || request.max_new_tokens || request.config_given;
  std::optional<memory::MemoryPlan> plan;
  if (want_plan) plan = plan_for(request, load());
  if (request.json) {
    nlohmann::json json = model::to_json(summary);
    if (plan) json["memory_plan"] = memory::to_json(*plan);
    out << json.dump(2) << '\n';
  } else {
    out << model::to_text(summary);
    if (plan) out << '\n' << memory::to_text(*plan);
  }
}

}  // namespace docsift::commands
