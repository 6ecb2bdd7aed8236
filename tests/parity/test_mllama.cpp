// Llama 3.2 Vision in LibTorch against transformers 5.23 patched to Meta's intermediate-layer
// convention (float32, CPU): the tiny random checkpoints and reference outputs of
// scripts/make_fixtures.py mllama, in both checkpoint layouts (hub: float32, one file; tree:
// bfloat16, two shards, 5.x config), through the family interface run and generate use.
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/family/loaded_model.h"
#include "docsift/family/mllama/model.h"
#include "docsift/family/mllama/tiles.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/memory/plan.h"
#include "docsift/model/safetensors.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"
#include "support/tensor_compare.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::ImageInputs;
using docsift::family::LoadedModel;
using docsift::testing::copy_with_config;
using docsift::testing::max_diff;
using docsift::testing::token_ids;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/mllama";

nlohmann::json summary() {
  std::ifstream in(kFixtures / "reference/summary.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_fixtures.py mllama");
  return nlohmann::json::parse(in);
}

// docsift's question for the reference's user text: the placeholder is <image>.
std::string question_for(std::string user_text) {
  const std::string token = "<|image|>";
  const auto at = user_text.find(token);
  REQUIRE(at != std::string::npos);
  return user_text.replace(at, token.size(), at == 0 ? "" : "<image>");
}

struct Run {
  std::vector<int32_t> prompt;
  ImageInputs inputs;
  docsift::generate::GenerationResult result;
};

Run run_image(const LoadedModel& engine, const std::string& name, const nlohmann::json& info) {
  Run r;
  r.inputs = engine.family().preprocess(
      docsift::image::read_rgb_image(kFixtures / "images" / (name + ".png")), 4);
  r.prompt =
      engine.chat().encode(question_for(info["user_text"].get<std::string>()), r.inputs.tiles);
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = 16;  // no stop ids: exactly 16, as the reference generated
  r.result = docsift::generate::generate(engine.model(), r.inputs, r.prompt, options);
  return r;
}

}  // namespace

TEST_CASE("Mllama canvas rules: the worked examples at 560 px and the arrangement list") {
  const auto supported = docsift::family::mllama::supported_aspect_ratios(4);
  REQUIRE(supported.size() == 8);
  CHECK((supported[1] == std::make_pair(1, 2)));
  CHECK((supported[7] == std::make_pair(4, 1)));
  struct Case {
    int w, h, rows, columns, resized_h, resized_w, id;
  };
  // docs/models.md, "Preprocessing", computed with transformers' own functions.
  for (const Case c : {Case{640, 480, 1, 2, 480, 640, 2}, Case{1920, 1080, 2, 2, 630, 1120, 6},
                       Case{1000, 2000, 2, 1, 1120, 560, 5}, Case{300, 300, 1, 1, 560, 560, 1}}) {
    CAPTURE(c.w);
    CAPTURE(c.h);
    const auto canvas = docsift::family::mllama::mllama_canvas(c.w, c.h, 4, 560, supported);
    CHECK(canvas.rows == c.rows);
    CHECK(canvas.columns == c.columns);
    CHECK(canvas.resized_height == c.resized_h);
    CHECK(canvas.resized_width == c.resized_w);
    CHECK(canvas.aspect_ratio_id == c.id);
  }
  // model.max_tiles below 4 limits the arrangements; ids still index the model's list.
  const auto two = docsift::family::mllama::mllama_canvas(1920, 1080, 2, 560, supported);
  CHECK(two.tiles() <= 2);
  CHECK(two.aspect_ratio_id == 2);  // (1, 2)
}

TEST_CASE(
    "Mllama preprocessing equals the processor: canvas, uint8 resize byte for byte, padding, empty "
    "slots") {
  const auto info = summary();
  const auto supported = docsift::family::mllama::supported_aspect_ratios(4);
  REQUIRE(info["images"].size() == 4);  // one_tile, grid_2x2, wide_1x3, tall_3x1
  for (const auto& [name, image] : info["images"].items()) {
    CAPTURE(name);
    const docsift::model::SafetensorsFile ref(kFixtures / "reference" / (name + ".safetensors"));
    const auto got = docsift::family::mllama::preprocess_mllama(
        docsift::image::read_rgb_image(kFixtures / "images" / (name + ".png")), 4, 112, 4,
        supported);
    CHECK(got.canvas.rows == image["grid_hw"][0].get<int>());
    CHECK(got.canvas.columns == image["grid_hw"][1].get<int>());
    CHECK(got.canvas.aspect_ratio_id == ref.view("aspect_ratio_ids").item<int64_t>());
    CHECK(got.canvas.tiles() == ref.view("num_tiles").item<int64_t>());
    // The resize (or none: wide_1x3 is padded only; one_tile is upscaled).
    const at::Tensor want =
        docsift::image::read_rgb_image(kFixtures / "reference" / (name + ".resized.png"))
            .permute({2, 0, 1});
    REQUIRE(got.resized_u8.sizes() == want.sizes());
    CHECK(got.resized_u8.equal(want));
    const int64_t tiles = got.canvas.tiles();
    CHECK(got.pixel_values.size(0) == 4);
    if (tiles < 4) CHECK(got.pixel_values.slice(0, tiles).abs().max().item<float>() == 0.0f);
    // Padding inside used tiles was black before normalising: −mean/std, not zero.
    const float pad_red = got.pixel_values[tiles - 1][0][111][111].item<float>();
    if (got.canvas.resized_height < got.canvas.rows * 112)
      CHECK(pad_red == doctest::Approx(-0.48145466 / 0.26862954));
  }
}

TEST_CASE(
    "Llama 3.2 Vision matches transformers: projector output, first logits, 16 greedy tokens, both "
    "layouts") {
  const auto info = summary();
  for (const std::string layout : {"hub", "tree"}) {
    CAPTURE(layout);
    LoadedModel engine(kFixtures / layout);
    CHECK(engine.family().name() == "llama32-vision");
    // <|end_of_text|>, <|eom_id|>, <|eot_id|>, in any order.
    auto stops = engine.chat().stop_ids();
    std::sort(stops.begin(), stops.end());
    CHECK(stops == std::vector<int32_t>(info["stop_ids"].begin(), info["stop_ids"].end()));
    engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
    REQUIRE(info["images"].size() == 4);  // one_tile, grid_2x2, wide_1x3, tall_3x1
    for (const auto& [name, image] : info["images"].items()) {
      CAPTURE(name);
      const docsift::model::SafetensorsFile ref(kFixtures / "reference" / (name + ".safetensors"));
      const Run r = run_image(engine, name, image);
      // The chat template writes BOS once and puts <|image|> where the question says.
      CHECK(r.prompt == token_ids(ref.view("input_ids")));
      if (ref.find("cross_attention_states") != nullptr) {
        const double d = max_diff(engine.model().encode_image(r.inputs).squeeze(0),
                                  ref.view("cross_attention_states"));
        MESSAGE(layout << " " << name << ": projector output max abs diff " << d);
        CHECK(d <= 1e-4);
      }
      const double logit_diff = max_diff(r.result.first_logits, ref.view("logits"));
      const auto want = token_ids(ref.view("greedy"));
      MESSAGE(layout << " " << name << " (" << r.inputs.tiles << " tiles, " << r.prompt.size()
                     << " prompt tokens): first logits max abs diff " << logit_diff
                     << ", greedy tokens "
                     << (r.result.tokens == want ? "identical" : "DIFFERENT"));
      CHECK(logit_diff <= 1e-4);
      CHECK(r.result.tokens == want);
      // The intermediate-layer choice is visible: transformers 5.x's own convention (the output of
      // layer i) gives other tokens on the same image.
      if (ref.find("greedy_output_convention") != nullptr) {
        CHECK(r.result.tokens != token_ids(ref.view("greedy_output_convention")));
      }
    }
  }
}

TEST_CASE(
    "Llama 3.2 Vision with the self-attention cache offloaded: the same tokens, cross K/V counted "
    "on the device side") {
  const auto info = summary();
  LoadedModel engine(kFixtures / "hub");
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const docsift::model::SafetensorsFile ref(kFixtures / "reference/tall_3x1.safetensors");
  ImageInputs inputs = engine.family().preprocess(
      docsift::image::read_rgb_image(kFixtures / "images/tall_3x1.png"), 4);
  const auto prompt = engine.chat().encode(
      question_for(info["images"]["tall_3x1"]["user_text"].get<std::string>()), inputs.tiles);
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = 16;
  options.cache = docsift::model::CachePlacement::kOffloaded;
  const auto result = docsift::generate::generate(engine.model(), inputs, prompt, options);
  CHECK(result.tokens == token_ids(ref.view("greedy")));
  // Self-attention K/V (3 layers × 2 × 2 heads × 16 × 58 tokens × 4 B) in host memory; the cross
  // K/V of 2 layers × 2 × 4·65 keys × 2 heads × 16 × 4 B stay with the compute device (the CPU
  // here, so they count as host bytes too).
  CHECK(result.cache_host_bytes >= 3u * 2 * 2 * 16 * 58 * 4 + 2u * 2 * 260 * 2 * 16 * 4);
}

TEST_CASE(
    "Llama 3.2 Vision: Meta's rows before <|image|> (model.cross_attention_rows: meta) match the "
    "patched reference") {
  const auto info = summary();
  docsift::family::FamilyOptions meta;
  meta.settings["model.cross_attention_rows"] = "meta";
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/true, meta);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const docsift::model::SafetensorsFile ref(kFixtures / "reference/grid_2x2.safetensors");
  const Run r = run_image(engine, "grid_2x2", info["images"]["grid_2x2"]);
  const double d = max_diff(r.result.first_logits, ref.view("logits_meta_rows"));
  MESSAGE("Meta rows: first logits max abs diff " << d);
  CHECK(d <= 1e-4);
  CHECK(max_diff(r.result.first_logits, ref.view("logits")) > 0.1);  // the choice matters
  CHECK(r.result.tokens ==
        std::vector<int32_t>(info["images"]["grid_2x2"]["greedy_meta_rows"].begin(),
                             info["images"]["grid_2x2"]["greedy_meta_rows"].end()));
}

TEST_CASE(
    "Llama 3.2 Vision int8: every language-model linear (self, cross, lm_head) quantized, logits "
    "close") {
  const auto info = summary();
  LoadedModel engine(kFixtures / "hub");
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const std::size_t dense = engine.model().parameter_bytes();
  const Run fp32 = run_image(engine, "grid_2x2", info["images"]["grid_2x2"]);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat, docsift::model::Quantization::Int8});
  const std::size_t int8 = engine.model().parameter_bytes();
  // The plan's count of what int8 holds is the loaded model's, byte for byte (scratch apart).
  docsift::memory::PlanRequest r;
  r.model = engine.memory_shape();
  r.dtype_bytes = 4;
  r.int8 = true;
  r.tiers = {docsift::memory::Tier::Standard};
  const auto plan = docsift::memory::plan_memory(r);
  CHECK(plan.tiers[0].weights == int8 + engine.model().scratch_bytes());
  r.int8 = false;
  CHECK(docsift::memory::plan_memory(r).tiers[0].weights == dense);
  const at::Tensor forced = docsift::generate::teacher_forced_logits(
      engine.model(), fp32.inputs, fp32.prompt, fp32.result.tokens);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const at::Tensor want = docsift::generate::teacher_forced_logits(engine.model(), fp32.inputs,
                                                                   fp32.prompt, fp32.result.tokens);
  const double d = max_diff(forced, want);
  MESSAGE("int8 weights " << int8 << " B vs float32 " << dense
                          << " B; teacher-forced logits max abs diff " << d << " (logit scale "
                          << want.abs().max().item<double>() << ")");
  CHECK(int8 < dense);
  CHECK(d < 0.05 * want.abs().max().item<double>());
}

TEST_CASE(
    "Llama 3.2 Vision checkpoints that do not match config.json are refused, naming the tensors") {
  docsift::testing::TempDir dir;
  copy_with_config(kFixtures / "hub", dir.path(),
                   [](nlohmann::json& c) { c["text_config"]["cross_attention_layers"] = {1}; });
  LoadedModel fewer(dir.path());
  CHECK_THROWS_WITH_AS(fewer.load(at::kCPU, docsift::model::Numerics{at::kFloat}),
                       doctest::Contains("language_model.model.layers.3.cross_attn"),
                       docsift::FileError);
  copy_with_config(kFixtures / "hub", dir.path(),
                   [](nlohmann::json& c) { c["vision_config"]["intermediate_size"] = 96; });
  LoadedModel wider(dir.path());
  CHECK_THROWS_WITH_AS(wider.load(at::kCPU, docsift::model::Numerics{at::kFloat}),
                       doctest::Contains("vision_model.transformer.layers.0.mlp.fc1.weight is [64, "
                                         "32], config.json implies [96, 32]"),
                       docsift::FileError);
  copy_with_config(kFixtures / "hub", dir.path(),
                   [](nlohmann::json& c) { c["vision_config"]["vision_output_dim"] = 64; });
  CHECK_THROWS_WITH_AS(LoadedModel{dir.path()},
                       doctest::Contains("vision_output_dim 64 is not hidden_size"),
                       docsift::FileError);
  copy_with_config(kFixtures / "hub", dir.path(),
                   [](nlohmann::json& c) { c["model_type"] = "llava"; });
  CHECK_THROWS_WITH_AS(
      LoadedModel{dir.path()},
      doctest::Contains("model_type \"llava\" (architecture MllamaForConditionalGeneration) is not "
                        "a model docsift runs; supported: internvl_chat (InternVL3/3.5), internvl "
                        "(InternVL3/3.5), mllama (Llama 3.2 Vision), qwen2_5_vl (Qwen2.5-VL)"),
      docsift::FileError);
}
