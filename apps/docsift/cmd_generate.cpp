// `docsift generate`: one image, one prompt, for debugging and parity checks.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "config_options.h"
#include "docsift/batch/device_setup.h"
#include "docsift/config/config.h"
#include "docsift/config/derive.h"
#include "docsift/error.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/generate/op_count.h"
#include "docsift/image/pages.h"
#include "docsift/io/input_file.h"
#include "docsift/io/pages.h"
#include "docsift/resilience/ladder.h"
#include "docsift/stopwatch.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

nlohmann::json attempts_json(const resilience::ImageRun& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : run.attempts) out.push_back(resilience::to_json(a));
  return out;
}

struct GenerateArgs {
  std::string model, image, prompt, device, dtype;
  ConfigOptions config;
  std::optional<int> max_new_tokens, max_tiles;
  std::optional<uint64_t> seed;
  std::optional<double> temperature, top_p;
  bool greedy = false, json = false, no_stop = false, count_ops = false;
};

void add_options(CLI::App* app, GenerateArgs& o) {
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

config::Config load_config(const GenerateArgs& o) {
  std::vector<std::string> overrides;
  if (!o.device.empty()) overrides.push_back("model.device=" + o.device);
  if (!o.dtype.empty()) overrides.push_back("model.dtype=" + o.dtype);
  if (o.max_tiles) overrides.push_back("model.max_tiles=" + std::to_string(*o.max_tiles));
  if (!o.model.empty()) overrides.push_back("model.path=" + o.model);
  config::Config cfg = o.config.load(overrides);
  if (cfg.model.path.empty())
    throw ConfigError("generate: give --model DIR (or model.path in the config)");
  return cfg;
}

// A free prompt has no field count to size the answer by: 256 unless the config says.
generate::GenerationOptions generation_options(const GenerateArgs& o, const config::Config& cfg,
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

int run_generate(const GenerateArgs& o) {
  const auto start = std::chrono::steady_clock::now();
  const config::Config cfg = load_config(o);
  (void)io::open_input(o.image, "--image");  // before the model loads: a typo costs no load

  const batch::Log log(std::cerr, g_log_format, /*quiet=*/false);
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
      std::cout << nlohmann::json{{"ok", false},
                                  {"error", run.error},
                                  {"attempts", attempts_json(run)}}
                       .dump(2)
                << '\n';
    }
    throw Error("generate: " + o.image + ": " + run.error);
  }
  if (!o.json) {
    std::cout << engine.tokenizer().decode(run.result.tokens, /*skip_special_tokens=*/true) << '\n';
    return kExitOk;
  }
  std::cout << generation_json(engine, image, run, options, op_report, timings).dump(2) << '\n';
  return kExitOk;
}

}  // namespace

Command add_generate_command(CLI::App& root) {
  auto o = std::make_shared<GenerateArgs>();
  CLI::App* app = root.add_subcommand(
      "generate", "Run the model on one image with one prompt (debugging, parity)");
  add_options(app, *o);
  return {app, [o] { return run_generate(*o); }};
}

}  // namespace docsift::cli
