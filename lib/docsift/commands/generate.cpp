// `docsift generate` (commands/generate.h): the model loaded as a run loads it, one image, one
// prompt through the tier ladder.
#include "docsift/commands/generate.h"

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "docsift/batch/device_setup.h"
#include "docsift/config/derive.h"
#include "docsift/error.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/generate/op_count.h"
#include "docsift/image/pages.h"
#include "docsift/io/input_file.h"
#include "docsift/resilience/ladder.h"
#include "docsift/stopwatch.h"

namespace docsift::commands {
namespace {

nlohmann::json attempts_json(const resilience::ImageRun& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : run.attempts) out.push_back(resilience::to_json(a));
  return out;
}

// A free prompt has no field count to size the answer by: 256 unless the config says.
generate::GenerationOptions generation_options(const GenerateRequest& o, const config::Config& cfg,
                                               const text::ChatTemplate& chat) {
  generate::GenerationOptions options =
      config::generation_options(cfg, 256, o.no_stop ? std::vector<int32_t>{} : chat.stop_ids());
  options.max_new_tokens = o.max_new_tokens.value_or(options.max_new_tokens);
  options.temperature = o.temperature.value_or(options.temperature);
  options.top_p = o.top_p.value_or(options.top_p);
  options.seed = o.seed.value_or(options.seed);
  options.greedy = o.greedy || options.temperature <= 0.0;
  return options;
}

struct Timings {
  double setup = 0, preprocess = 0;
};

// --json's object: the answer, what produced it, and where the time went.
nlohmann::json generation_json(const family::LoadedModel& engine, const family::ImageInputs& image,
                               const resilience::ImageRun& run,
                               const generate::GenerationOptions& options,
                               const nlohmann::json& op_report, const Timings& timings) {
  const generate::GenerationResult& result = run.result;
  const auto& tokenizer = engine.tokenizer();
  const auto per_second = [](double count, double seconds) {
    return seconds > 0 ? count / seconds : 0.0;
  };
  return {
      {"text", tokenizer.decode(result.tokens, /*skip_special_tokens=*/true)},
      {"ids", result.tokens},
      {"prompt_tokens", result.prompt_tokens},
      {"generated_tokens", result.tokens.size()},
      {"stopped_by",
       result.stop_token >= 0 ? tokenizer.id_to_token(result.stop_token) : "max_new_tokens"},
      {"family", std::string(engine.family().name())},
      {"tiles", image.tiles},
      {"grid", {image.columns, image.rows}},
      {"device", engine.model().device().str()},
      {"dtype", std::string(c10::toString(engine.model().dtype()))},
      {"quantization", std::string(to_string(engine.model().numerics().quantization))},
      {"weight_bytes", engine.model().parameter_bytes()},
      {"tier", std::string(to_string(run.tier))},
      {"attempts", attempts_json(run)},
      {"cache_bytes", {{"device", result.cache_device_bytes}, {"host", result.cache_host_bytes}}},
      {"greedy", options.greedy},
      {"decode_ops", op_report},
      {"timings_s",
       {{"setup", timings.setup},
        {"preprocess", timings.preprocess},
        {"vision", result.vision_seconds},
        {"prefill", result.prefill_seconds},
        {"decode", result.decode_seconds}}},
      {"tokens_per_s",
       {{"prefill", per_second(static_cast<double>(result.prompt_tokens), result.prefill_seconds)},
        // The first token comes out of prefill; decode produced the rest.
        {"decode",
         per_second(result.tokens.empty() ? 0.0 : static_cast<double>(result.tokens.size() - 1),
                    result.decode_seconds)}}},
  };
}

}  // namespace

std::vector<std::string> config_shortcuts(const GenerateRequest& o) {
  std::vector<std::string> overrides;
  if (!o.device.empty()) overrides.push_back("model.device=" + o.device);
  if (!o.dtype.empty()) overrides.push_back("model.dtype=" + o.dtype);
  if (o.max_tiles) overrides.push_back("model.max_tiles=" + std::to_string(*o.max_tiles));
  if (!o.model.empty()) overrides.push_back("model.path=" + o.model);
  return overrides;
}

void generate(const GenerateRequest& o, const config::Config& cfg, const batch::Log& log,
              std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  if (cfg.model.path.empty())
    throw ConfigError("generate: give --model DIR (or model.path in the config)");
  (void)io::open_input(o.image, "--image");  // before the model loads: a typo costs no load

  const c10::Device device = batch::start_device(cfg, &log);
  family::LoadedModel engine(cfg.model.path, /*require_weights=*/true, config::family_options(cfg));
  resilience::Ladder ladder(engine, config::ladder_settings(cfg, device));
  const auto& chat = engine.chat();
  Timings timings;
  timings.setup = seconds_since(start);

  const auto preprocess_start = std::chrono::steady_clock::now();
  const family::ImageInputs image =
      engine.family().preprocess(image::read_rgb_image(o.image), cfg.model.max_tiles);
  const auto prompt = chat.encode(o.prompt, image.prompt_units);
  timings.preprocess = seconds_since(preprocess_start);

  generate::GenerationOptions options = generation_options(o, cfg, chat);
  std::unique_ptr<generate::OpCounter> ops;
  if (o.count_ops) {
    ops = std::make_unique<generate::OpCounter>();
    options.before_stage = [&ops](generate::Stage stage, int step) { ops->on_stage(stage, step); };
  }
  // Through the tier ladder, so memory.tiers and fault injection apply here too; the model is
  // loaded by the first tier.
  const resilience::ImageRun run = ladder.run(1, image, prompt, options);
  const nlohmann::json op_report = ops ? ops->report() : nlohmann::json(nullptr);
  ops.reset();
  if (!run.ok) {
    if (o.json) {
      out << nlohmann::json{{"ok", false}, {"error", run.error}, {"attempts", attempts_json(run)}}
                 .dump(2)
          << '\n';
    }
    throw Error("generate: " + o.image + ": " + run.error);
  }
  if (!o.json) {
    out << engine.tokenizer().decode(run.result.tokens, /*skip_special_tokens=*/true) << '\n';
    return;
  }
  out << generation_json(engine, image, run, options, op_report, timings).dump(2) << '\n';
}

}  // namespace docsift::commands
