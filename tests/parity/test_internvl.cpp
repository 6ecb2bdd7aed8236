// InternVL3 and InternVL3.5 in LibTorch against transformers (float32, CPU): the tiny random
// checkpoints and reference outputs of scripts/make_fixtures.py, in both checkpoint layouts.
#include <ATen/ops/from_blob.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "docsift/device/devices.h"
#include "docsift/error.h"
#include "docsift/family/family.h"
#include "docsift/family/internvl/chat.h"
#include "docsift/family/internvl/model.h"
#include "docsift/family/internvl/tiles.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/decode_graph.h"
#include "docsift/model/safetensors.h"
#include "docsift/text/chat_template.h"
#include "support/cuda_kernels.h"
#include "support/fixture_files.h"
#include "support/safetensors_writer.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/tensor_compare.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::internvl::InternVLModel;
using docsift::image::read_rgb_image;
using docsift::model::Checkpoint;
using docsift::testing::copy_with_config;
using docsift::testing::max_diff;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/internvl";
const fs::path kFixtures35 = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/internvl35";

nlohmann::json summary(const fs::path& fixtures = kFixtures) {
  std::ifstream in(fixtures / "reference/summary.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_fixtures.py");
  return nlohmann::json::parse(in);
}

struct Loaded {
  std::unique_ptr<Checkpoint> checkpoint;
  std::unique_ptr<InternVLModel> model;
  docsift::text::Tokenizer tokenizer;
};

Loaded load(const std::string& layout, const fs::path& fixtures = kFixtures) {
  auto checkpoint = std::make_unique<Checkpoint>(fixtures / layout);
  auto model = std::make_unique<InternVLModel>(*checkpoint, at::kFloat, at::Device(at::kCPU));
  auto tokenizer = docsift::text::Tokenizer::load(fixtures / layout);
  const int32_t image_token = *tokenizer.token_to_id("<IMG_CONTEXT>");
  if (layout == "original") {
    model->set_image_token_id(image_token);
  } else {
    CHECK(model->config().image_token_id == image_token);
  }
  return {std::move(checkpoint), std::move(model), std::move(tokenizer)};
}

// Both layouts of the fixture in `fixtures` against its reference: the prompt's ids, InternViT,
// the projected features, the first-step logits (within 1e-4) and every greedy token (identical).
void check_against_transformers(const fs::path& fixtures) {
  const auto info = summary(fixtures);
  std::map<std::string, at::Tensor> features_by_layout;
  for (const std::string layout : {"hf", "original"}) {
    CAPTURE(layout);
    const Loaded loaded = load(layout, fixtures);
    CHECK(loaded.model->config().tokens_per_tile() == 256);
    const docsift::text::ChatTemplate chat(docsift::family::internvl::chat_format(false),
                                           loaded.tokenizer);
    REQUIRE(info["images"].size() == 2);  // one_tile, many_tiles
    for (const auto& [name, image_info] : info["images"].items()) {
      CAPTURE(name);
      const docsift::model::SafetensorsFile ref(fixtures / "reference" / (name + ".safetensors"));
      const auto image = docsift::family::internvl::preprocess_internvl(
          read_rgb_image(fixtures / "images" / (name + ".png")), info["max_tiles"].get<int>());
      const int64_t tiles = image.pixel_values.size(0);
      REQUIRE(tiles == image_info["tiles"].get<int64_t>());

      // The prompt: chat template + tokenizer give the reference's ids exactly.
      const auto prompt = chat.encode(info["question"].get<std::string>(), static_cast<int>(tiles));
      const at::Tensor want_ids = ref.view("input_ids");
      REQUIRE(static_cast<int64_t>(prompt.size()) == want_ids.numel());
      CHECK(at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong)
                .equal(want_ids));

      if (ref.find("vit") != nullptr) {
        const double d = max_diff(loaded.model->vision_tower(image.pixel_values), ref.view("vit"));
        MESSAGE(layout << " " << name << ": InternViT max abs diff " << d);
        CHECK(d <= 1e-4);
      }
      const at::Tensor features = loaded.model->image_features(image.pixel_values);
      const double feature_diff = max_diff(features, ref.view("features"));
      features_by_layout[layout + name] = features;

      const at::Tensor greedy = ref.view("greedy");
      docsift::generate::GenerationOptions options;
      options.max_new_tokens =
          static_cast<int>(greedy.numel());  // no stop tokens: exactly as many as the reference
      const auto result =
          docsift::generate::generate(*loaded.model, image.pixel_values, prompt, options);
      const double logit_diff = max_diff(result.first_logits, ref.view("logits"));
      const std::vector<int32_t> want = docsift::testing::token_ids(greedy);
      MESSAGE(layout << " " << name << " (" << tiles << " tiles, " << prompt.size()
                     << " prompt tokens): features max abs diff " << feature_diff
                     << ", first-step logits max abs diff " << logit_diff << ", greedy tokens "
                     << (result.tokens == want ? "identical" : "DIFFERENT"));
      CHECK(feature_diff <= 1e-4);
      CHECK(logit_diff <= 1e-4);
      CHECK(result.tokens == want);
    }
  }
  for (const auto& name : {"one_tile", "many_tiles"}) {
    CHECK(max_diff(features_by_layout[std::string("hf") + name],
                   features_by_layout[std::string("original") + name]) == 0.0);
  }
}

}  // namespace

TEST_CASE(
    "InternVL3 matches transformers: vision features, first logits, 16 greedy tokens, both "
    "layouts") {
  check_against_transformers(kFixtures);
}

TEST_CASE(
    "InternVL3.5 (Qwen3: q/k head norms, no biases, head_dim 24 of 64/4) matches transformers: 48 "
    "greedy tokens, both layouts") {
  REQUIRE(summary(kFixtures35)["images"]["one_tile"]["greedy"].size() == 48);
  check_against_transformers(kFixtures35);
  const Loaded loaded = load("hf", kFixtures35);
  CHECK(loaded.model->config().text.qk_norm);
  CHECK_FALSE(loaded.model->config().text.attention_bias);
  CHECK(loaded.model->config().text.head_dim == 24);
}

TEST_CASE("InternVL3.5 variants docsift does not run are refused by name: MoE, GPT-OSS, Flash") {
  docsift::testing::TempDir dir;
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit,
                           const std::string& says) {
    CAPTURE(says);
    std::error_code ec;
    fs::remove_all(dir.path() / "m", ec);
    fs::create_directories(dir.path() / "m");
    copy_with_config(kFixtures35 / "hf", dir.path() / "m", edit);
    try {
      docsift::family::open_family(Checkpoint(dir.path() / "m"), {});
      FAIL("not refused");
    } catch (const docsift::FileError& e) {
      CAPTURE(std::string(e.what()));
      CHECK(std::string(e.what()).find(says) != std::string::npos);
    }
  };
  refused([](nlohmann::json& c) { c["text_config"]["model_type"] = "qwen3_moe"; },
          "Qwen3 MoE (InternVL3.5-30B-A3B");
  refused([](nlohmann::json& c) { c["text_config"]["model_type"] = "gpt_oss"; },
          "GPT-OSS (InternVL3.5-20B-A4B)");

  // Flash: the original layout with a second projector beside mlp1.
  const fs::path flash = dir.path() / "flash";
  fs::create_directories(flash);
  copy_with_config(kFixtures35 / "original", flash, [](nlohmann::json&) {});
  docsift::testing::NamedTensors tensors;
  {
    const Checkpoint original(kFixtures35 / "original");
    for (const auto* entry : original.entries()) {
      tensors.emplace_back(entry->name,
                           original.load(entry->name, at::kFloat, at::Device(at::kCPU)).clone());
    }
  }
  tensors.emplace_back("mlp2.0.weight", at::ones({8}));
  docsift::testing::write_safetensors(flash / "model.safetensors", tensors);
  try {
    docsift::family::open_family(Checkpoint(flash), {});
    FAIL("not refused");
  } catch (const docsift::FileError& e) {
    CHECK(std::string(e.what()).find(
              "tensor mlp2.0.weight belongs to an InternVL3.5-Flash checkpoint") !=
          std::string::npos);
  }
}

TEST_CASE("InternVL3 checkpoints with wrong or missing tensors are refused, naming them") {
  docsift::testing::TempDir dir;
  // Claim a wider model than the weights hold: every vision tensor disagrees, named with both
  // shapes.
  copy_with_config(kFixtures / "hf", dir.path(),
                   [](nlohmann::json& c) { c["vision_config"]["intermediate_size"] = 96; });
  Checkpoint checkpoint(dir.path());
  CHECK_THROWS_WITH_AS(
      InternVLModel(checkpoint, at::kFloat, at::Device(at::kCPU)),
      doctest::Contains("mlp.fc1.weight is [64, 32], config.json implies [96, 32]"),
      docsift::FileError);
  // Layer 1's tensors become unexpected. (transformers 5 saves -hf checkpoints with the first -hf
  // release's names, language_model.model.*, which docsift reads as well as
  // model.language_model.*.)
  copy_with_config(kFixtures / "hf", dir.path(),
                   [](nlohmann::json& c) { c["text_config"]["num_hidden_layers"] = 1; });
  Checkpoint fewer(dir.path());
  CHECK_THROWS_WITH_AS(InternVLModel(fewer, at::kFloat, at::Device(at::kCPU)),
                       doctest::Contains("unexpected (12): language_model.model.layers.1."),
                       docsift::FileError);
  copy_with_config(kFixtures / "hf", dir.path(), [](nlohmann::json& c) {
    c["architectures"] = {"LlavaForConditionalGeneration"};
  });
  Checkpoint other(dir.path());
  CHECK_THROWS_WITH_AS(
      InternVLModel(other, at::kFloat, at::Device(at::kCPU)),
      doctest::Contains("supported: InternVLChatModel, InternVLForConditionalGeneration"),
      docsift::FileError);
}

TEST_CASE("generation: stop tokens end it, seeded sampling repeats, top_p near 0 is greedy") {
  const Loaded loaded = load("hf");
  const auto info = summary();
  const auto image = docsift::family::internvl::preprocess_internvl(
      read_rgb_image(kFixtures / "images/one_tile.png"), info["max_tiles"].get<int>());
  const docsift::text::ChatTemplate chat(docsift::family::internvl::chat_format(false),
                                         loaded.tokenizer);
  const auto prompt = chat.encode(info["question"].get<std::string>(), 1);
  const std::vector<int32_t> greedy =
      info["images"]["one_tile"]["greedy"].get<std::vector<int32_t>>();

  docsift::generate::GenerationOptions stop;
  stop.max_new_tokens = 16;
  stop.stop_ids = {greedy[3]};
  REQUIRE(std::find(greedy.begin(), greedy.begin() + 3, greedy[3]) == greedy.begin() + 3);
  const auto stopped = docsift::generate::generate(*loaded.model, image.pixel_values, prompt, stop);
  CHECK(stopped.tokens == std::vector<int32_t>(greedy.begin(), greedy.begin() + 3));
  CHECK(stopped.stop_token == greedy[3]);

  docsift::generate::GenerationOptions sample;
  sample.max_new_tokens = 12;
  sample.greedy = false;
  sample.temperature = 1.5;
  sample.seed = 7;
  const auto a = docsift::generate::generate(*loaded.model, image.pixel_values, prompt, sample);
  const auto b = docsift::generate::generate(*loaded.model, image.pixel_values, prompt, sample);
  CHECK(a.tokens == b.tokens);
  CHECK(a.tokens !=
        std::vector<int32_t>(greedy.begin(), greedy.begin() + 12));  // it really samples
  sample.top_p = 1e-6;  // only the most likely token survives the nucleus
  const auto nucleus =
      docsift::generate::generate(*loaded.model, image.pixel_values, prompt, sample);
  CHECK(nucleus.tokens == std::vector<int32_t>(greedy.begin(), greedy.begin() + 12));
}

TEST_CASE("InternVL3 tied embeddings: lm_head is the embedding table when config.json says so") {
  docsift::testing::TempDir dir;
  copy_with_config(kFixtures / "hf", dir.path(),
                   [](nlohmann::json& c) { c["text_config"]["tie_word_embeddings"] = true; });
  Checkpoint tied_checkpoint(dir.path());
  InternVLModel tied(tied_checkpoint, at::kFloat,
                     at::Device(at::kCPU));  // the file's lm_head is skipped, not "unexpected"
  const Loaded untied = load("hf");
  auto cache_tied = tied.make_cache(4);
  auto cache_untied = untied.model->make_cache(4);
  const at::Tensor ids = at::tensor({5, 6, 7}, at::kLong);
  const at::Tensor tied_logits = tied.forward(tied.embed_tokens(ids).unsqueeze(0), *cache_tied);
  const at::Tensor untied_logits =
      untied.model->forward(untied.model->embed_tokens(ids).unsqueeze(0), *cache_untied);
  // Tied logits are the last hidden state against the embedding rows: a different head entirely.
  CHECK(max_diff(tied_logits, untied_logits) > 1e-2);
  CHECK(tied.parameter_bytes() < untied.model->parameter_bytes());
}

namespace {

// Greedy decode steps after the prompt on `model`: eager (model.forward over the growing cache) or
// through model::DecodeGraph (the fixed-shape step; `capture` replays it as a CUDA graph). Returns
// the tokens and each step's logits on the CPU, float32 [V].
struct Steps {
  std::vector<int32_t> tokens;
  std::vector<at::Tensor> logits;
};
enum class StepMode { kEager, kFixed, kGraph };

Steps decode_steps(const InternVLModel& model, const docsift::family::ImageInputs& image,
                   const std::vector<int32_t>& prompt, int steps, StepMode mode,
                   bool poison = false) {
  const auto capacity = static_cast<int64_t>(prompt.size()) + steps + 1;
  auto cache = model.make_cache(capacity);
  if (poison) {
    auto& device_cache = dynamic_cast<docsift::model::DeviceKVCache&>(*cache);
    for (int64_t i = 0; i < cache->shape().layers; ++i) {
      device_cache.storage(i).first.fill_(std::numeric_limits<float>::quiet_NaN());
      device_cache.storage(i).second.fill_(std::numeric_limits<float>::quiet_NaN());
    }
  }
  const at::Tensor ids = at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
  at::Tensor logits = model.forward(model.embed(ids, model.encode_image(image)), *cache);
  std::unique_ptr<docsift::model::DecodeGraph> graph;
  if (mode != StepMode::kEager) {
    auto& device_cache = dynamic_cast<docsift::model::DeviceKVCache&>(*cache);
    graph = std::make_unique<docsift::model::DecodeGraph>(model.decoder(), device_cache,
                                                          mode == StepMode::kGraph);
  }
  Steps out;
  for (int i = 0; i < steps; ++i) {
    const auto next = static_cast<int32_t>(logits.argmax().item<int64_t>());
    out.tokens.push_back(next);
    logits = graph ? graph->step(next)
                   : model.forward(
                         model.embed_tokens(at::tensor({static_cast<int64_t>(next)}, at::kLong))
                             .unsqueeze(0),
                         *cache);
    out.logits.push_back(logits.to(at::kCPU));
  }
  return out;
}

// The largest |a − b| over every step's logits; infinite when either holds a NaN or an infinity
// (a comparison with NaN would otherwise pass as a difference of 0).
double max_step_diff(const Steps& a, const Steps& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.logits.size(); ++i) {
    if (!a.logits[i].isfinite().all().item<bool>() || !b.logits[i].isfinite().all().item<bool>()) {
      return std::numeric_limits<double>::infinity();
    }
    worst = std::max(worst, max_diff(a.logits[i], b.logits[i]));
  }
  return worst;
}

// float32 with none of docsift's CUDA kernels (fused norm, decode GEMV and attention): the
// reference the kernels are checked against.
const docsift::model::Numerics kLibTorchOps{
    at::kFloat, {}, {}, /*fused_norm=*/false, /*decode_kernels=*/false};

// A fixture's one_tile page: its image, the prompt and the reference's greedy tokens.
struct OneTile {
  docsift::family::ImageInputs image;
  std::vector<int32_t> prompt, greedy;
};
OneTile one_tile(const fs::path& fixtures) {
  const auto info = summary(fixtures);
  const auto tokenizer = docsift::text::Tokenizer::load(fixtures / "hf");
  const docsift::text::ChatTemplate chat(docsift::family::internvl::chat_format(false), tokenizer);
  return {docsift::family::ImageInputs(
              docsift::family::internvl::preprocess_internvl(
                  read_rgb_image(fixtures / "images/one_tile.png"), info["max_tiles"].get<int>())
                  .pixel_values),
          chat.encode(info["question"].get<std::string>(), 1),
          info["images"]["one_tile"]["greedy"].get<std::vector<int32_t>>()};
}

}  // namespace

TEST_CASE(
    "the fixed-shape decode step a CUDA graph replays gives the eager step's logits and tokens") {
  // What model::DecodeGraph captures: RoPE rows picked on the device, keys written at a device
  // position, attention over the whole cache under a mask. On the CPU it runs eagerly; on a GPU
  // it is also captured and replayed. InternVL3 (Qwen2, biases) and InternVL3.5 (Qwen3, q/k norms).
  for (const auto& fixtures : {kFixtures, kFixtures35}) {
    CAPTURE(fixtures.filename().string());
    const Loaded loaded = load("hf", fixtures);
    const auto [image, prompt, greedy] = one_tile(fixtures);
    const int n = static_cast<int>(greedy.size());
    const Steps eager = decode_steps(*loaded.model, image, prompt, n, StepMode::kEager);
    // The cache's storage is uninitialised memory; filled with NaN here (what a reused block can
    // hold, as seen on a GPU machine), the unwritten positions must still not reach the logits.
    const Steps fixed =
        decode_steps(*loaded.model, image, prompt, n, StepMode::kFixed, /*poison=*/true);
    MESSAGE(fixtures.filename().string()
            << ": fixed-shape step against eager, " << n << " steps, max abs logit diff "
            << max_step_diff(fixed, eager));
    // This bound once failed now and then on a loaded machine (8 runs of 694): the first
    // eager run of the process was 1.7e-4 off, because RoPE's first cos table had half its values
    // from MKL's low-accuracy kernel (docs/architecture.md, "The same values every run"). The
    // model's constructor now settles MKL's vector math first. A failure prints which step
    // diverged and whether the eager path repeats itself.
    const Steps again = decode_steps(*loaded.model, image, prompt, n, StepMode::kEager);
    std::ostringstream per_step;
    for (std::size_t i = 0; i < eager.logits.size(); ++i)
      per_step << ' ' << max_diff(fixed.logits[i], eager.logits[i]);
    INFO("fixed against eager, per step:" << per_step.str() << "; eager against eager run again: "
                                          << max_step_diff(again, eager));
    CHECK(eager.tokens == greedy);
    CHECK(fixed.tokens == greedy);
    CHECK(max_step_diff(fixed, eager) <= 5e-5);  // float32, sums over 294 keys against 294 + masked
  }
}

TEST_CASE("on a GPU, decode steps replayed as a CUDA graph match the eager steps (float32)") {
  const auto status = docsift::device::cuda_status();
  if (!status.available) DOCSIFT_SKIP("no CUDA device: " << status.reason);
  const at::Device cuda(at::kCUDA, 0);
  for (const auto& fixtures : {kFixtures, kFixtures35}) {
    CAPTURE(fixtures.filename().string());
    const Checkpoint checkpoint(fixtures / "hf");
    const InternVLModel model(checkpoint, at::kFloat, cuda);
    const auto [image, prompt, greedy] = one_tile(fixtures);
    const int n = static_cast<int>(greedy.size());
    const Steps eager = decode_steps(model, image, prompt, n, StepMode::kEager);
    const Steps graph = decode_steps(model, image, prompt, n, StepMode::kGraph, /*poison=*/true);
    MESSAGE(fixtures.filename().string()
            << " on " << status.devices.front().name << ": graph against eager, " << n
            << " steps, max abs logit diff " << max_step_diff(graph, eager));
    CHECK(eager.tokens == greedy);
    CHECK(graph.tokens == greedy);
    CHECK(max_step_diff(graph, eager) <= 1e-4);
    // Through generate(), which turns graphs on by default: the same tokens, and with them off too.
    docsift::generate::GenerationOptions options;
    options.max_new_tokens = n;
    CHECK(docsift::generate::generate(model, image, prompt, options).tokens == greedy);
    options.cuda_graphs = false;
    CHECK(docsift::generate::generate(model, image, prompt, options).tokens == greedy);
  }
}

namespace {

// Decoder::add_norm's LibTorch form: x + update (clamped), then the norm in `out`; without an
// update, Decoder::norm's: x normed, nothing clamped.
std::pair<at::Tensor, at::Tensor> unfused_add_rms_norm(const at::Tensor& x,
                                                       const at::Tensor& update,
                                                       const at::Tensor& weight, double eps,
                                                       double clamp, at::ScalarType out) {
  if (!update.defined())
    return {x, docsift::model::as_dtype(docsift::model::rms_norm(x, weight, eps), out)};
  at::Tensor sum = x.add(update);
  if (clamp > 0) sum = sum.clamp(-clamp, clamp);
  return {sum, docsift::model::as_dtype(docsift::model::rms_norm(sum, weight, eps), out)};
}

}  // namespace

TEST_CASE(
    "the fused residual add and RMSNorm is for CUDA tensors only: on the CPU the decoder keeps "
    "LibTorch's ops") {
  const at::Tensor x = at::randn({1, 3, 64});
  CHECK_FALSE(docsift::model::fused_add_rms_norm(x, at::randn({1, 3, 64}), at::ones({64}), 1e-6,
                                                 0.0, at::kFloat));
  // model.fused_norm on the CPU: the same logits as without, bit for bit.
  const Checkpoint checkpoint(kFixtures / "hf");
  const InternVLModel plain(checkpoint, kLibTorchOps, at::kCPU);
  const InternVLModel fused(checkpoint,
                            docsift::model::Numerics{at::kFloat, {}, {}, /*fused_norm=*/true, true},
                            at::kCPU);
  const at::Tensor ids = at::tensor({1, 2, 3, 4, 5}, at::kLong);
  auto a = plain.make_cache(8), b = fused.make_cache(8);
  CHECK(max_diff(plain.forward(plain.embed_tokens(ids).unsqueeze(0), *a),
                 fused.forward(fused.embed_tokens(ids).unsqueeze(0), *b)) == 0.0);
}

TEST_CASE("on a GPU, the fused residual add and RMSNorm gives LibTorch's sums and norms") {
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  const at::Device cuda(at::kCUDA, 0);
  at::manual_seed(5);
  struct Types {
    at::ScalarType x, update, out;
    double clamp;
  };
  // bfloat16; float16 over a float32 residual stream (the guard); float16 clamped; float32.
  const Types cases[] = {{at::kBFloat16, at::kBFloat16, at::kBFloat16, 0.0},
                         {at::kFloat, at::kHalf, at::kHalf, 0.0},
                         {at::kHalf, at::kHalf, at::kHalf, 64504.0},
                         {at::kFloat, at::kFloat, at::kFloat, 0.0}};
  for (const Types& t : cases) {
    for (const auto& shape : {std::vector<int64_t>{1, 1, 3584},
                              {1, 7, 896},
                              {1, 1, 12, 64},
                              {1, 2, 100},
                              {1, 1, 5000}}) {
      CAPTURE(t.x);
      CAPTURE(t.update);
      CAPTURE(shape.back());
      const int64_t n = shape.back();
      const auto on = at::TensorOptions().device(cuda);
      at::Tensor x = at::randn(shape, on).mul(3).to(t.x);
      at::Tensor update = at::randn(shape, on).to(t.update);
      const at::Tensor weight = at::randn({n}, on).mul(0.2).add(1);  // held in float32 (blocks.h)
      if (t.clamp > 0) {
        // Two sums past the clamp, one of them past float16's range (65,000 + 1,000 rounds to inf).
        x.view({-1}).narrow(0, 0, 2).fill_(65000.0);
        update.view({-1}).narrow(0, 0, 1).fill_(1000.0);
      }
      for (const bool add : {true, false}) {
        CAPTURE(add);
        const at::Tensor u = add ? update : at::Tensor();
        const auto fused = docsift::model::fused_add_rms_norm(x, u, weight, 1e-6, t.clamp, t.out);
        REQUIRE(fused.has_value());
        const auto [sum, normed] = unfused_add_rms_norm(x, u, weight, 1e-6, t.clamp, t.out);
        CHECK((fused->sum.scalar_type() == t.x));
        CHECK((fused->normed.scalar_type() == t.out));
        CHECK(fused->sum.sizes() == x.sizes());
        // The sum has one rounding both ways: equal bit for bit. The norm's variance is summed
        // in another order, so an element may land one step of the output type away.
        CHECK(max_diff(fused->sum, sum) == 0.0);
        // A flipped rounding of the normed value can move the product's by one more step: three
        // steps of the output type at most. A wrong rounding rule would stay within that but move
        // many elements, so most must be equal bit for bit too (bench/gpu/norm_roundings.py, these
        // rules against LibTorch's CPU ops: all equal for bfloat16 and for float16 over float32).
        // Not for float32, whose last bits follow the summation order, nor for the clamped rows:
        // next to two squares of 64,504 (8.3e9) the small ones are lost or kept by the order too.
        const double steps = t.out == at::kFloat ? 1e-5 : (t.out == at::kHalf ? 3e-3 : 2.4e-2);
        const at::Tensor got = fused->normed.to(at::kFloat), want = normed.to(at::kFloat);
        CHECK(fused->normed.isfinite().all().item<bool>());
        CHECK(got.sub(want).abs().div(want.abs().add(1e-3)).max().item<double>() <= steps);
        if (t.out != at::kFloat && t.clamp == 0)
          CHECK(got.eq(want).to(at::kFloat).mean().item<double>() >= 0.9);
      }
    }
  }
  // A NaN in the sum stays NaN (LibTorch's clamp keeps it) and poisons its own row only.
  at::Tensor x = at::randn({1, 2, 256}, at::TensorOptions().device(cuda)).to(at::kHalf);
  x[0][0][3].fill_(std::numeric_limits<float>::quiet_NaN());
  const auto fused = docsift::model::fused_add_rms_norm(
      x, at::zeros_like(x), at::ones({256}, x.options().dtype(at::kFloat)), 1e-6, 64504.0,
      at::kHalf);
  REQUIRE(fused.has_value());
  CHECK(fused->sum[0][0][3].isnan().item<bool>());
  CHECK(fused->normed[0][0].isnan().all().item<bool>());
  CHECK(fused->normed[0][1].isfinite().all().item<bool>());
}

TEST_CASE(
    "on a GPU, a decoder with model.fused_norm writes the reference tokens, eager and through CUDA "
    "graphs") {
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  const auto status = docsift::device::cuda_status();  // the GPU's name for the messages
  const at::Device cuda(at::kCUDA, 0);
  for (const auto& fixtures : {kFixtures, kFixtures35}) {
    CAPTURE(fixtures.filename().string());
    const Checkpoint checkpoint(fixtures / "hf");
    const InternVLModel plain(checkpoint, kLibTorchOps, cuda);
    const InternVLModel fused(
        checkpoint, docsift::model::Numerics{at::kFloat, {}, {}, /*fused_norm=*/true, false}, cuda);
    const auto [image, prompt, greedy] = one_tile(fixtures);
    const int n = static_cast<int>(greedy.size());
    const Steps want = decode_steps(plain, image, prompt, n, StepMode::kEager);
    const Steps eager = decode_steps(fused, image, prompt, n, StepMode::kEager);
    const Steps graph = decode_steps(fused, image, prompt, n, StepMode::kGraph, /*poison=*/true);
    MESSAGE(fixtures.filename().string()
            << " on " << status.devices.front().name << ": fused norm against LibTorch's, " << n
            << " steps, max abs logit diff " << max_step_diff(eager, want) << " eager, "
            << max_step_diff(graph, want) << " graph");
    CHECK(eager.tokens == greedy);
    CHECK(graph.tokens == greedy);
    CHECK(max_step_diff(eager, want) <= 1e-4);
    CHECK(max_step_diff(graph, want) <= 1e-4);
  }
}

TEST_CASE(
    "on a GPU, a decoder with model.decode_kernels gives LibTorch's tokens, eager and through CUDA "
    "graphs") {
  // The decode GEMV and its SwiGLU form (eager and graph), and RoPE, cache write and attention as
  // two kernels (graph steps; InternVL3.5's q/k head norms keep LibTorch's attention ops).
  // float32: the reference's greedy tokens and logits within 1e-4; bfloat16: the same tokens as
  // the path without any of docsift's kernels, the logits' largest difference reported.
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  const auto status = docsift::device::cuda_status();  // the GPU's name for the messages
  const at::Device cuda(at::kCUDA, 0);
  for (const auto& fixtures : {kFixtures, kFixtures35}) {
    for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
      CAPTURE(fixtures.filename().string());
      CAPTURE(dtype);
      const Checkpoint checkpoint(fixtures / "hf");
      const InternVLModel plain(checkpoint, docsift::model::Numerics{dtype, {}, {}, false, false},
                                cuda);
      const InternVLModel kernels(checkpoint, docsift::model::Numerics{dtype, {}, {}, true, true},
                                  cuda);
      const auto [image, prompt, greedy] = one_tile(fixtures);
      const int n = static_cast<int>(greedy.size());
      const Steps want = decode_steps(plain, image, prompt, n, StepMode::kGraph);
      const Steps eager = decode_steps(kernels, image, prompt, n, StepMode::kEager);
      const Steps graph =
          decode_steps(kernels, image, prompt, n, StepMode::kGraph, /*poison=*/true);
      MESSAGE(fixtures.filename().string()
              << " " << dtype << " on " << status.devices.front().name
              << ": decode kernels against LibTorch's ops, " << n << " steps, max abs logit diff "
              << max_step_diff(eager, want) << " eager, " << max_step_diff(graph, want)
              << " graph");
      CHECK(eager.tokens == want.tokens);
      CHECK(graph.tokens == want.tokens);
      if (dtype == at::kFloat) {
        CHECK(want.tokens == greedy);
        CHECK(max_step_diff(eager, want) <= 1e-4);
        CHECK(max_step_diff(graph, want) <= 1e-4);
      }
    }
  }
}
