// Qwen3-VL in LibTorch against transformers 5.23 (float32, CPU): the tiny random checkpoints and
// reference outputs of scripts/make_fixtures.py qwen3vl, through the family interface run and
// generate use. Three checkpoints: hub (the release's layout: rope_scaling + rope_theta, bfloat16
// shards, tied embeddings, GQA, DeepStack from blocks 0 and 2), tf5 (what transformers 5 writes:
// rope_parameters, float32, untied, MQA, DeepStack from block 1) and tf5-deep3 (untied, GQA,
// DeepStack from blocks 0, 1 and 3 into all three decoder layers).
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/family/loaded_model.h"
#include "docsift/family/patch_image.h"
#include "docsift/family/qwen3vl/model.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/memory/plan.h"
#include "docsift/model/mrope.h"
#include "docsift/model/safetensors.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"
#include "support/tensor_compare.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
namespace qwen = docsift::family::qwen3vl;
using docsift::family::ImageInputs;
using docsift::family::LoadedModel;
using docsift::testing::copy_with_config;
using docsift::testing::max_diff;
using docsift::testing::token_ids;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen3vl";
constexpr const char* kQuestion = "Extract the fields.";

// The (layout, image) pairs the script wrote a reference for.
std::vector<std::string> images_of(const std::string& layout) {
  std::vector<std::string> out;
  for (const char* name : {"small", "mid", "large", "tiny"}) {
    if (fs::exists(kFixtures / "reference" / (layout + "_" + name + ".safetensors")))
      out.emplace_back(name);
  }
  REQUIRE_MESSAGE(out.size() >= 2, "run scripts/make_fixtures.py qwen3vl");
  return out;
}

at::Tensor image(const std::string& name) {
  return docsift::image::read_rgb_image(kFixtures / "images" / (name + ".png"));
}

// Relative to the reference's largest magnitude (values before a norm grow with depth).
double relative_diff(const at::Tensor& got, const at::Tensor& want) {
  return max_diff(got, want) / std::max(1.0, want.abs().max().item<double>());
}

}  // namespace

TEST_CASE(
    "Qwen3-VL preprocessing equals the processor: 32 px blocks, uint8 resize byte for byte, "
    "patches in its order") {
  const nlohmann::json config = nlohmann::json::parse(std::ifstream(kFixtures / "hub/config.json"));
  const qwen::Qwen3VLConfig c = qwen::parse_qwen3vl_config(config, "config.json");
  CHECK(c.vision.grid().factor() == 32);
  const docsift::family::ImageConfig ic = docsift::family::parse_image_config(
      nlohmann::json::parse(std::ifstream(kFixtures / "hub/preprocessor_config.json")),
      "preprocessor", c.vision.grid());
  CHECK(ic.max_pixels == 131072);
  CHECK(ic.mean[0] == 0.5);
  int checked = 0;
  for (const char* name : {"small", "mid", "large", "tiny"}) {
    const fs::path file =
        kFixtures / "reference" / (std::string("pixels_") + name + ".safetensors");
    if (!fs::exists(file)) continue;
    const std::string image_name = name;
    CAPTURE(image_name);
    const docsift::model::SafetensorsFile ref(file);
    for (const auto& [resample, suffix] : {std::pair{docsift::image::Resample::Pil, "pil"},
                                           std::pair{docsift::image::Resample::Torch, "torch"}}) {
      const std::string backend = suffix;
      CAPTURE(backend);
      const docsift::family::PatchImage got =
          docsift::family::preprocess_patches(image(name), c.vision.grid(), ic, resample);
      const at::Tensor grid = ref.view("image_grid_thw").flatten();
      CHECK(got.grid_h == grid[1].item<int64_t>());
      CHECK(got.grid_w == grid[2].item<int64_t>());
      // Pillow 13 sometimes resamples vertically first; the fixture keeps the classic order
      // (horizontal, then vertical: Pillow up to 12, and docsift) where the two differ.
      const std::string classic = "resized_pil_classic";
      const bool reordered = backend == "pil" && ref.find(classic) != nullptr;
      const at::Tensor want_resized = ref.view(reordered ? classic : "resized_" + backend);
      REQUIRE(got.resized.sizes() == want_resized.sizes());
      CHECK(got.resized.equal(want_resized));
      if (reordered) {
        MESSAGE(
            image_name << ": Pillow 13's vertical-first resize differs from the classic order in "
                       << got.resized.ne(ref.view("resized_pil")).sum().item<int64_t>()
                       << " bytes; docsift gives the classic order's exactly");
      }
      if (ref.find(std::string("pixel_values_") + suffix) != nullptr) {
        CHECK(max_diff(got.pixel_values, ref.view(std::string("pixel_values_") + suffix)) <= 1e-5);
      }
    }
    ++checked;
  }
  CHECK(checked >= 3);
}

TEST_CASE(
    "Qwen3-VL matches transformers: positions, learned positions, vision and DeepStack features, "
    "first and second logits, greedy tokens, three checkpoints") {
  for (const std::string layout : {"hub", "tf5", "tf5-deep3"}) {
    CAPTURE(layout);
    LoadedModel engine(kFixtures / layout, /*require_weights=*/true);
    CHECK(engine.family().name() == "qwen3-vl");
    engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
    const auto& model = static_cast<const qwen::Qwen3VLModel&>(engine.model());
    for (const std::string& name : images_of(layout)) {
      CAPTURE(name);
      const docsift::model::SafetensorsFile ref(kFixtures / "reference" /
                                                (layout + "_" + name + ".safetensors"));
      const ImageInputs inputs = engine.family().preprocess(image(name), 12);
      const std::vector<int32_t> prompt = engine.chat().encode(kQuestion, inputs.prompt_units);
      // The checkpoint's template: no system message, the vision block, one pad per merged patch.
      REQUIRE(prompt == token_ids(ref.view("input_ids")));
      const docsift::model::MropePositions positions = docsift::model::mrope_positions(
          prompt, engine.chat().image_token_id(), inputs.rows / 2, inputs.columns / 2);
      CHECK(positions.ids.equal(ref.view("position_ids").to(at::kLong)));
      CHECK(positions.delta == ref.view("rope_deltas").item<int64_t>());
      const double learned =
          max_diff(model.position_embeddings(inputs.rows, inputs.columns), ref.view("pos_embeds"));
      const qwen::Qwen3VLModel::VisionOutput vision =
          model.vision_tower(inputs.pixel_values, inputs.rows, inputs.columns);
      const double hidden = relative_diff(vision.hidden, ref.view("vision_hidden"));
      const double deep = max_diff(vision.deepstack, ref.view("deepstack"));
      const at::Tensor features = engine.model().encode_image(inputs);
      const double feature_diff = max_diff(features[0], ref.view("image_embeds"));
      auto sequence =
          engine.model().start(features, inputs, static_cast<int64_t>(prompt.size()) + 16,
                               docsift::model::CachePlacement::kDevice);
      const at::Tensor first = sequence->prefill(prompt);
      const std::vector<int32_t> want = token_ids(ref.view("greedy"));
      const at::Tensor second = sequence->decode(want.front());
      docsift::generate::GenerationOptions options;
      options.max_new_tokens = static_cast<int>(want.size());  // exactly the reference's count
      const auto result = docsift::generate::generate(engine.model(), inputs, prompt, options);
      const double d1 = max_diff(first, ref.view("logits")),
                   d2 = max_diff(second, ref.view("logits_step2"));
      MESSAGE(layout << " " << name << " (" << inputs.rows << " × " << inputs.columns
                     << " patches, " << prompt.size() << " prompt tokens): positions " << learned
                     << ", vision hidden " << hidden << " (relative), DeepStack " << deep
                     << ", features " << feature_diff << ", first logits " << d1 << ", second "
                     << d2 << ", greedy tokens "
                     << (result.tokens == want ? "identical" : "DIFFERENT"));
      CHECK(learned <= 1e-6);
      CHECK(hidden <= 1e-5);
      CHECK(deep <= 1e-5);
      CHECK(feature_diff <= 1e-5);
      CHECK(d1 <= 1e-4);
      CHECK(d2 <= 1e-4);
      CHECK(result.tokens == want);
    }
  }
}

TEST_CASE("Qwen3-VL vision.resample auto: torchvision's, as transformers 5 loads both layouts") {
  const docsift::model::SafetensorsFile ref(kFixtures / "reference/pixels_tiny.safetensors");
  for (const char* layout : {"hub", "tf5"}) {
    CAPTURE(layout);
    const ImageInputs in =
        LoadedModel(kFixtures / layout, false).family().preprocess(image("tiny"), 12);
    CHECK(max_diff(in.pixel_values, ref.view("pixel_values_torch")) <= 1e-5);
    CHECK(max_diff(in.pixel_values, ref.view("pixel_values_pil")) > 1e-3);  // the choice is visible
  }
  docsift::family::FamilyOptions pil;
  pil.resample = docsift::image::Resample::Pil;
  const ImageInputs in =
      LoadedModel(kFixtures / "hub", false, pil).family().preprocess(image("tiny"), 12);
  CHECK(max_diff(in.pixel_values, ref.view("pixel_values_pil")) <= 1e-5);
}

TEST_CASE("Qwen3-VL with the KV cache offloaded gives the same tokens") {
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/true);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const docsift::model::SafetensorsFile ref(kFixtures / "reference/hub_mid.safetensors");
  const ImageInputs inputs = engine.family().preprocess(image("mid"), 12);
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = static_cast<int>(ref.view("greedy").numel());
  options.cache = docsift::model::CachePlacement::kOffloaded;
  const auto result = docsift::generate::generate(
      engine.model(), inputs, engine.chat().encode(kQuestion, inputs.prompt_units), options);
  CHECK(result.tokens == token_ids(ref.view("greedy")));
}

TEST_CASE(
    "Qwen3-VL int8: the decoder linear layers quantized and the vision tower not, logits close, "
    "the plan counts it") {
  LoadedModel engine(kFixtures / "tf5");
  const ImageInputs inputs = engine.family().preprocess(image("mid"), 12);
  const auto prompt = engine.chat().encode(kQuestion, inputs.prompt_units);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const std::size_t dense = engine.model().parameter_bytes();
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = 8;
  const auto fp32 = docsift::generate::generate(engine.model(), inputs, prompt, options);
  const at::Tensor want =
      docsift::generate::teacher_forced_logits(engine.model(), inputs, prompt, fp32.tokens);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat, docsift::model::Quantization::Int8});
  const std::size_t int8 = engine.model().parameter_bytes();
  docsift::memory::PlanRequest r;
  r.model = engine.memory_shape();
  r.dtype_bytes = 4;
  r.int8 = true;
  r.tiers = {docsift::memory::Tier::Standard};
  CHECK(docsift::memory::plan_memory(r).tiers[0].weights == int8 + engine.model().scratch_bytes());
  r.int8 = false;
  CHECK(docsift::memory::plan_memory(r).tiers[0].weights == dense);
  const at::Tensor forced =
      docsift::generate::teacher_forced_logits(engine.model(), inputs, prompt, fp32.tokens);
  const double d = max_diff(forced, want);
  MESSAGE("int8 weights " << int8 << " B vs float32 " << dense
                          << " B; teacher-forced logits max abs diff " << d << " (logit scale "
                          << want.abs().max().item<double>() << ")");
  CHECK(int8 < dense);
  CHECK(d < 0.05 * want.abs().max().item<double>());
}

TEST_CASE(
    "Qwen3-VL: what docsift does not run is refused by name, and mismatched files are named") {
  docsift::testing::TempDir dir;
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit,
                           const std::string& message) {
    copy_with_config(kFixtures / "hub", dir.path(), edit);
    CHECK_THROWS_WITH_AS(LoadedModel{dir.path()}, doctest::Contains(message.c_str()),
                         docsift::FileError);
  };
  refused([](nlohmann::json& c) { c["model_type"] = "qwen3_vl_moe"; },
          "Qwen3-VL's mixture-of-experts models");
  refused([](nlohmann::json& c) { c.erase("text_config"); }, "missing \"text_config\"");
  refused([](nlohmann::json& c) { c["image_token_id"] = 7; },
          "config.json's id for <|image_pad|> is 7");
  refused([](nlohmann::json& c) { c["text_config"].erase("rope_scaling"); },
          "needs multimodal RoPE");
  refused([](nlohmann::json& c) { c["vision_config"]["out_hidden_size"] = 32; },
          "out_hidden_size 32 is not the language model's hidden_size 64");
  refused(
      [](nlohmann::json& c) {
        c["vision_config"]["deepstack_visual_indexes"] = {0, 4};
      },
      "distinct blocks below depth 4");
  refused(
      [](nlohmann::json& c) {
        c["vision_config"]["deepstack_visual_indexes"] = {0, 1, 2, 3};
      },
      "more than the language model's 3 layers");
  refused([](nlohmann::json& c) { c["vision_config"]["num_position_embeddings"] = 60; },
          "must be a square");
  refused([](nlohmann::json& c) { c["vision_config"]["hidden_act"] = "relu"; }, "hidden_act");
  copy_with_config(kFixtures / "hub", dir.path(), [](nlohmann::json&) {});
  fs::remove(dir.path() / "preprocessor_config.json");
  CHECK_THROWS_WITH_AS(LoadedModel{dir.path()},
                       doctest::Contains("has neither preprocessor_config.json nor"),
                       docsift::FileError);
  // A shard that does not match config.json: the tensor named with both shapes.
  copy_with_config(kFixtures / "hub", dir.path(),
                   [](nlohmann::json& c) { c["vision_config"]["intermediate_size"] = 96; });
  LoadedModel wider(dir.path());
  CHECK_THROWS_WITH_AS(
      wider.load(at::kCPU, docsift::model::Numerics{at::kFloat}),
      doctest::Contains("blocks.0.mlp.linear_fc1.weight is [64, 32], config.json implies [96, 32]"),
      docsift::FileError);
}

TEST_CASE("Qwen3-VL: vision.max_pixels lowers the pixel budget, and the prompt and plan follow") {
  docsift::family::FamilyOptions options;
  options.max_pixels = 32 * 32 * 16;
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/false, options);
  const ImageInputs small = engine.family().preprocess(image("large"), 12);
  CHECK(small.prompt_units <= 16);
  CHECK(engine.family().plan_prompt_units(1) == 16);
  LoadedModel full(kFixtures / "hub", /*require_weights=*/false);
  CHECK(full.family().preprocess(image("large"), 12).prompt_units > 16);
  CHECK(full.family().plan_prompt_units(1) == 131072 / 1024);
  options.max_pixels = 100;
  CHECK_THROWS_WITH_AS(LoadedModel(kFixtures / "hub", false, options),
                       doctest::Contains("is below this model's smallest image"),
                       docsift::ConfigError);
}
