// Qwen2.5-VL in LibTorch against transformers 5.23 (float32, CPU): the tiny random checkpoints and
// reference outputs of scripts/make_fixtures.py qwen25vl, in both checkpoint layouts (hub: the
// release's flat config, bfloat16 shards, tied embeddings; tf5: what transformers 5 writes, nested
// config, float32, untied), through the family interface run and generate use.
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/family/loaded_model.h"
#include "docsift/family/patch_image.h"
#include "docsift/family/qwen25vl/model.h"
#include "docsift/family/qwen25vl/positions.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/memory/plan.h"
#include "docsift/model/mrope.h"
#include "docsift/model/safetensors.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"
#include "support/tensor_compare.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
namespace qwen = docsift::family::qwen25vl;
using docsift::family::ImageInputs;
using docsift::family::LoadedModel;
using docsift::testing::copy_with_config;
using docsift::testing::max_diff;
using docsift::testing::token_ids;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen25vl";
constexpr const char* kQuestion = "Extract the fields.";

// The (layout, image) pairs the script wrote a reference for.
std::vector<std::string> images_of(const std::string& layout) {
  std::vector<std::string> out;
  for (const char* name : {"small", "mid", "large", "tiny"}) {
    if (fs::exists(kFixtures / "reference" / (layout + "_" + name + ".safetensors")))
      out.emplace_back(name);
  }
  REQUIRE_MESSAGE(out.size() >= 2, "run scripts/make_fixtures.py qwen25vl");
  return out;
}

at::Tensor image(const std::string& name) {
  return docsift::image::read_rgb_image(kFixtures / "images" / (name + ".png"));
}

}  // namespace

TEST_CASE(
    "Qwen2.5-VL smart_resize: rounding half to even, the pixel budget both ways, the aspect-ratio "
    "limit") {
  // 150 × 97: round(97/28) = 3, round(150/28) = 5 → 84 × 140, within [3136, 100352].
  CHECK(docsift::family::smart_resize(97, 150, 28, 3136, 100352).height == 84);
  CHECK(docsift::family::smart_resize(97, 150, 28, 3136, 100352).width == 140);
  // 70 = 2.5 · 28 rounds to 2 (half to even), 126 = 4.5 · 28 to 4.
  CHECK(docsift::family::smart_resize(70, 126, 28, 28 * 28, 1 << 20).height == 56);
  CHECK(docsift::family::smart_resize(70, 126, 28, 28 * 28, 1 << 20).width == 112);
  // Above max_pixels: scaled down with floor; below min_pixels: up with ceil.
  const auto down = docsift::family::smart_resize(400, 500, 28, 3136, 100352);
  CHECK(down.height * down.width <= 100352);
  CHECK(down.height % 28 == 0);
  const auto up = docsift::family::smart_resize(30, 40, 28, 3136, 100352);
  CHECK(up.height == 56);
  CHECK(up.width == 84);
  CHECK_THROWS_WITH_AS(docsift::family::smart_resize(10, 2050, 28, 3136, 100352),
                       doctest::Contains("aspect ratios up to 200"), docsift::Error);
}

TEST_CASE(
    "Qwen2.5-VL preprocessing equals the processor: grid, uint8 resize byte for byte, patches in "
    "its order") {
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/false);
  const nlohmann::json config = engine.checkpoint().config();
  const qwen::Qwen25VLConfig c = qwen::parse_qwen25vl_config(config, "config.json");
  std::ifstream in(kFixtures / "hub/preprocessor_config.json");
  const docsift::family::ImageConfig ic = docsift::family::parse_image_config(
      nlohmann::json::parse(in), "preprocessor", c.vision.grid());
  CHECK(ic.max_pixels == 100352);
  int checked = 0;
  for (const char* name : {"small", "mid", "large", "tiny"}) {
    const fs::path file =
        kFixtures / "reference" / (std::string("pixels_") + name + ".safetensors");
    if (!fs::exists(file)) continue;
    CAPTURE(name);
    const docsift::model::SafetensorsFile ref(file);
    for (const auto& [resample, suffix] : {std::pair{docsift::image::Resample::Pil, "pil"},
                                           std::pair{docsift::image::Resample::Torch, "torch"}}) {
      CAPTURE(suffix);
      const docsift::family::PatchImage got =
          docsift::family::preprocess_patches(image(name), c.vision.grid(), ic, resample);
      const at::Tensor grid = ref.view("image_grid_thw").flatten();
      CHECK(got.grid_h == grid[1].item<int64_t>());
      CHECK(got.grid_w == grid[2].item<int64_t>());
      const at::Tensor want_resized = ref.view(std::string("resized_") + suffix);
      REQUIRE(got.resized.sizes() == want_resized.sizes());
      CHECK(got.resized.equal(want_resized));
      // The float patches are stored for all but the large image (5 MB).
      if (ref.find(std::string("pixel_values_") + suffix) != nullptr) {
        const double d =
            max_diff(got.pixel_values, ref.view(std::string("pixel_values_") + suffix));
        MESSAGE(name << " " << suffix << ": pixel values max abs diff " << d);
        CHECK(d <= 1e-5);
      }
    }
    ++checked;
  }
  CHECK(checked >= 3);
}

TEST_CASE(
    "Qwen2.5-VL matches transformers: positions, vision features, first and second logits, greedy "
    "tokens, both layouts") {
  // The references ran transformers 5.23's default processor, torchvision's resize, in both
  // layouts; docsift's auto picks Pillow's for the release (what its processor did under 4.x).
  docsift::family::FamilyOptions torchvision;
  torchvision.resample = docsift::image::Resample::Torch;
  for (const std::string layout : {"hub", "tf5"}) {
    CAPTURE(layout);
    LoadedModel engine(kFixtures / layout, /*require_weights=*/true, torchvision);
    CHECK(engine.family().name() == "qwen2.5-vl");
    engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
    const auto& model = static_cast<const qwen::Qwen25VLModel&>(engine.model());
    for (const std::string& name : images_of(layout)) {
      CAPTURE(name);
      const docsift::model::SafetensorsFile ref(kFixtures / "reference" /
                                                (layout + "_" + name + ".safetensors"));
      const ImageInputs inputs = engine.family().preprocess(image(name), 12);
      const std::vector<int32_t> prompt = engine.chat().encode(kQuestion, inputs.prompt_units);
      // The checkpoint's template: system message, vision block, one pad per merged patch.
      REQUIRE(prompt == token_ids(ref.view("input_ids")));
      // The shared multimodal RoPE block over the merged grid (merge size 2).
      const docsift::model::MropePositions positions = docsift::model::mrope_positions(
          prompt, engine.chat().image_token_id(), inputs.rows / 2, inputs.columns / 2);
      CHECK(positions.ids.equal(ref.view("position_ids").to(at::kLong)));
      CHECK(positions.delta == ref.view("rope_deltas").item<int64_t>());
      CHECK(qwen::window_order(model.config().vision, inputs.rows, inputs.columns)
                .index.equal(ref.view("window_index")));
      const double hidden =
          max_diff(model.vision_tower(inputs.pixel_values, inputs.rows, inputs.columns),
                   ref.view("vision_hidden"));
      const at::Tensor features = engine.model().encode_image(inputs);
      const double feature_diff = max_diff(features, ref.view("image_embeds"));
      // Prefill, then one step with the reference's first greedy token: the decode positions
      // continue at cache length + rope delta.
      auto sequence =
          engine.model().start(features, inputs, static_cast<int64_t>(prompt.size()) + 16,
                               docsift::model::CachePlacement::kDevice);
      const at::Tensor first = sequence->prefill(prompt);
      const std::vector<int32_t> want = token_ids(ref.view("greedy"));
      const at::Tensor second = sequence->decode(want.front());
      docsift::generate::GenerationOptions options;
      options.max_new_tokens =
          static_cast<int>(want.size());  // no stop ids: exactly as many as the reference
      const auto result = docsift::generate::generate(engine.model(), inputs, prompt, options);
      const double d1 = max_diff(first, ref.view("logits")),
                   d2 = max_diff(second, ref.view("logits_step2"));
      MESSAGE(layout << " " << name << " (" << inputs.rows << " × " << inputs.columns
                     << " patches, " << prompt.size() << " prompt tokens): vision hidden " << hidden
                     << ", features " << feature_diff << ", first logits " << d1 << ", second "
                     << d2 << ", greedy tokens "
                     << (result.tokens == want ? "identical" : "DIFFERENT"));
      // The vision tower's last block, before the merger's norm: values up to ~9 here, so 1e-5
      // relative (the merged features, after it, are within 1e-5 absolute).
      CHECK(hidden <= 1e-5 * std::max(1.0, ref.view("vision_hidden").abs().max().item<double>()));
      CHECK(feature_diff <= 1e-5);
      CHECK(d1 <= 1e-4);
      CHECK(d2 <= 1e-4);
      CHECK(result.tokens == want);
    }
  }
}

TEST_CASE(
    "Qwen2.5-VL vision.resample auto: Pillow's for the release's layout, torchvision's for "
    "transformers 5's") {
  const docsift::model::SafetensorsFile ref(kFixtures / "reference/pixels_small.safetensors");
  const ImageInputs hub =
      LoadedModel(kFixtures / "hub", false).family().preprocess(image("small"), 12);
  const ImageInputs tf5 =
      LoadedModel(kFixtures / "tf5", false).family().preprocess(image("small"), 12);
  CHECK(max_diff(hub.pixel_values, ref.view("pixel_values_pil")) <= 1e-5);
  CHECK(max_diff(tf5.pixel_values, ref.view("pixel_values_torch")) <= 1e-5);
  CHECK(max_diff(hub.pixel_values, tf5.pixel_values) > 1e-3);  // the choice is visible
}

TEST_CASE("Qwen2.5-VL with the KV cache offloaded gives the same tokens") {
  docsift::family::FamilyOptions torchvision;
  torchvision.resample = docsift::image::Resample::Torch;
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/true, torchvision);
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
    "Qwen2.5-VL int8: the decoder linear layers quantized and the vision tower not, logits close, "
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
    "Qwen2.5-VL: what docsift does not run is refused by name, and mismatched files are named") {
  docsift::testing::TempDir dir;
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit,
                           const std::string& message) {
    copy_with_config(kFixtures / "hub", dir.path(), edit);
    CHECK_THROWS_WITH_AS(LoadedModel{dir.path()}, doctest::Contains(message.c_str()),
                         docsift::FileError);
  };
  refused([](nlohmann::json& c) { c["model_type"] = "qwen2_vl"; }, "Qwen2-VL's vision tower");
  refused([](nlohmann::json& c) { c["model_type"] = "qwen3_vl_moe"; },
          "Qwen3-VL's mixture-of-experts models");
  refused(
      [](nlohmann::json& c) {
        c["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}};
      },
      "this checkpoint is already quantized (quantization_config: awq)");
  refused([](nlohmann::json& c) { c["image_token_id"] = 7; },
          "config.json's id for <|image_pad|> is 7");
  refused(
      [](nlohmann::json& c) {
        c["rope_scaling"] = {{"type", "default"}};
      },
      "needs multimodal RoPE");
  refused(
      [](nlohmann::json& c) {
        c["rope_scaling"]["mrope_section"] = {2, 3, 4};
      },
      "summing to head_dim / 2 (8)");
  refused([](nlohmann::json& c) { c["vision_config"]["out_hidden_size"] = 32; },
          "out_hidden_size 32 is not the language model's hidden_size 64");
  refused([](nlohmann::json& c) { c["vision_config"]["fullatt_block_indexes"] = {4}; },
          "below depth 4");
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
      doctest::Contains(
          "visual.blocks.0.mlp.gate_proj.weight is [64, 32], config.json implies [96, 32]"),
      docsift::FileError);
}

TEST_CASE("Qwen2.5-VL: vision.max_pixels lowers the pixel budget, and the prompt and plan follow") {
  docsift::family::FamilyOptions options;
  options.max_pixels = 28 * 28 * 16;
  LoadedModel engine(kFixtures / "hub", /*require_weights=*/false, options);
  const ImageInputs small = engine.family().preprocess(image("large"), 12);
  CHECK(small.prompt_units <= 16);
  CHECK(engine.family().plan_prompt_units(1) == 16);
  LoadedModel full(kFixtures / "hub", /*require_weights=*/false);
  CHECK(full.family().preprocess(image("large"), 12).prompt_units > 16);
  CHECK(full.family().plan_prompt_units(1) == 100352 / 784);
  options.max_pixels = 100;
  CHECK_THROWS_WITH_AS(LoadedModel(kFixtures / "hub", false, options),
                       doctest::Contains("is below this model's smallest image"),
                       docsift::ConfigError);
}
