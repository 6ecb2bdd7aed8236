// int8 weight-only linear layers (W8A16) and the float16 residual guard: every matmul path against
// a float32 matmul of the dequantized weights, the quantized fixture model against its float32 self
// (teacher-forced on the reference tokens), streaming quantization, and the float16-overflow
// fixture of scripts/make_fp16_fixture.py.
#include <ATen/ops/linear.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/family/internvl/chat.h"
#include "docsift/family/internvl/model.h"
#include "docsift/family/internvl/tiles.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/inspect.h"
#include "docsift/model/linear.h"
#include "docsift/model/safetensors.h"
#include "docsift/text/chat_template.h"
#include "support/cuda_kernels.h"
#include "support/fixture_files.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/tensor_compare.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::internvl::InternVLModel;
using docsift::model::Checkpoint;
using docsift::model::Float16Residual;
using docsift::model::Int8Path;
using docsift::model::LinearWeight;
using docsift::model::Numerics;
using docsift::model::Quantization;
using docsift::testing::max_diff;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures";

double max_abs(const at::Tensor& t) { return t.abs().max().item<double>(); }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE_MESSAGE(in.good(), p.string() << " missing: run the fixture scripts");
  return nlohmann::json::parse(in);
}

// y from `path` against float32 x @ dequantized(w)ᵀ (+ bias), relative to the reference's largest
// value.
double path_error(Int8Path path, const at::Tensor& x, const LinearWeight& w,
                  const docsift::model::DequantScratch* s) {
  const at::Tensor want = at::linear(
      x.to(at::kFloat), w.dense(at::kFloat),
      w.bias.defined() ? std::optional<at::Tensor>(w.bias.to(at::kFloat)) : std::nullopt);
  const at::Tensor got = docsift::model::linear_via(path, x, w, s);
  REQUIRE(got.sizes() == want.sizes());
  CHECK((got.scalar_type() == x.scalar_type()));
  return max_diff(got, want) / max_abs(want);
}

}  // namespace

TEST_CASE(
    "int8 quantization: symmetric per-row absmax, error within half a step, zero rows stay zero") {
  at::manual_seed(1);
  at::Tensor w = at::randn({37, 96}, at::kFloat).mul(at::randn({37, 1}).abs());
  w[5].zero_();
  // Streaming block by block (7 rows at a time) gives the same result as one block.
  const LinearWeight q =
      docsift::model::quantize_int8(w.to(at::kBFloat16), at::kCPU, /*block_rows=*/7);
  const LinearWeight whole = docsift::model::quantize_int8(w.to(at::kBFloat16), at::kCPU, 1 << 20);
  CHECK((q.weight.scalar_type() == at::kChar));
  CHECK((q.scale.scalar_type() == at::kFloat));
  CHECK(q.weight.equal(whole.weight));
  CHECK(q.scale.equal(whole.scale));
  CHECK(q.weight.abs().amax(1).max().item<int>() == 127);  // each non-zero row uses the full range
  CHECK(q.weight[5].abs().sum().item<int>() == 0);
  CHECK(q.scale[5].item<float>() == 1.0f);
  const at::Tensor source = w.to(at::kBFloat16).to(at::kFloat);
  const at::Tensor err = q.dense(at::kFloat).sub(source).abs();
  CHECK(err.le(q.scale.unsqueeze(1).mul(0.5 + 1e-6)).all().item<bool>());
  CHECK(q.nbytes() == 37 * 96 + 37 * 4);
}

TEST_CASE("int8 linear: every path equals a float32 matmul of the dequantized weights") {
  at::manual_seed(2);
  const int64_t out = 80, in = 64;
  LinearWeight w = docsift::model::quantize_int8(at::randn({out, in}).mul(0.05), at::kCPU);
  w.bias = at::randn({out}).mul(0.1);
  // A scratch smaller than the layer: the dequantize path goes through it 24 rows at a time.
  const docsift::model::DequantScratch small(24 * in, at::kFloat, at::kCPU);
  for (const int64_t rows : {1, 3, 8, 13}) {
    CAPTURE(rows);
    const at::Tensor x = at::randn({1, rows, in});
    CHECK(path_error(Int8Path::kDequantize, x, w, &small) < 1e-5);
    CHECK(path_error(Int8Path::kDequantize, x, w, nullptr) < 1e-5);
    CHECK((docsift::model::int8_path(x, w) ==
           (rows <= 8 ? Int8Path::kInt8PackMM : Int8Path::kDequantize)));
    for (const auto dtype : {at::kFloat, at::kBFloat16}) {
      CAPTURE(dtype);
      LinearWeight wd = w;
      wd.bias = w.bias.to(dtype);
      // Activations enter the CPU int8 kernel as bfloat16 (8-bit mantissa), whatever the dtype.
      const double tolerance = 2e-2;
      const double e = path_error(Int8Path::kInt8PackMM, x.to(dtype), wd, nullptr);
      CHECK(e < tolerance);
    }
  }
  // The dense path of an unquantized layer is at::linear itself.
  const LinearWeight dense{w.dense(at::kFloat), {}, w.bias};
  CHECK((docsift::model::int8_path(at::randn({1, in}), dense) == Int8Path::kDense));
}

TEST_CASE("int8 linear on CUDA: the fused kernel (1-8 rows) and the dequantize path (prefill)") {
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  at::manual_seed(3);
  const at::Device cuda(at::kCUDA, 0);
  for (const auto& [out, in] : {std::pair<int64_t, int64_t>{4864, 896}, {896, 4864}, {1000, 48}}) {
    LinearWeight w = docsift::model::quantize_int8(at::randn({out, in}).mul(0.05), cuda);
    for (const auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      w.bias = at::randn({out}, at::TensorOptions().device(cuda)).mul(0.1).to(dtype);
      const docsift::model::DequantScratch scratch(out * in / 3, dtype, cuda);
      for (const int64_t rows : {1, 2, 5, 8, 64}) {
        CAPTURE(out);
        CAPTURE(in);
        CAPTURE(dtype);
        CAPTURE(rows);
        const at::Tensor x = at::randn({1, rows, in}, at::TensorOptions().device(cuda)).to(dtype);
        const double tolerance = dtype == at::kFloat ? 1e-4 : 1e-2;
        const Int8Path path = docsift::model::int8_path(x, w);
        CHECK((path == (rows <= 8 ? Int8Path::kFusedCuda : Int8Path::kDequantize)));
        CHECK(path_error(path, x, w, &scratch) < tolerance);
        CHECK(path_error(Int8Path::kDequantize, x, w, &scratch) < tolerance);
      }
    }
  }
}

namespace {

// Teacher-forced on the fixture's reference tokens (tests/fixtures/<fixture>/): `numerics` against
// float32, as the worst relative logit error per position (max |Δlogit| / max |logit|) and top-1
// agreement; both images. Also says the weight bytes against float32's.
struct Agreement {
  double worst = 0;
  int agree = 0, positions = 0;
  std::size_t bytes = 0, float32_bytes = 0, scratch = 0;
};
Agreement teacher_forced_against_float32(const std::string& fixture, const Numerics& numerics) {
  const fs::path dir = kFixtures / fixture / "hf";
  const auto info = read_json(kFixtures / fixture / "reference/summary.json");
  Checkpoint checkpoint(dir);
  const InternVLModel fp32(checkpoint, at::kFloat, at::kCPU);
  const InternVLModel model(checkpoint, numerics, at::kCPU);
  Agreement a{0, 0, 0, model.parameter_bytes(), fp32.parameter_bytes(), model.scratch_bytes()};
  const auto tokenizer = docsift::text::Tokenizer::load(dir);
  const docsift::text::ChatTemplate chat(docsift::family::internvl::chat_format(false), tokenizer);
  REQUIRE(info["images"].size() == 2);  // one_tile, many_tiles
  for (const auto& [name, image_info] : info["images"].items()) {
    const auto image = docsift::family::internvl::preprocess_internvl(
        docsift::image::read_rgb_image(kFixtures / fixture / "images" / (name + ".png")),
        info["max_tiles"].get<int>());
    const auto prompt = chat.encode(info["question"].get<std::string>(),
                                    static_cast<int>(image.pixel_values.size(0)));
    const auto greedy = image_info["greedy"].get<std::vector<int32_t>>();
    const at::Tensor want =
        docsift::generate::teacher_forced_logits(fp32, image.pixel_values, prompt, greedy);
    const at::Tensor got =
        docsift::generate::teacher_forced_logits(model, image.pixel_values, prompt, greedy)
            .to(at::kFloat);
    REQUIRE(got.isfinite().all().item<bool>());
    const at::Tensor rel = got.sub(want).abs().amax(1).div(want.abs().amax(1));
    a.worst = std::max(a.worst, rel.max().item<double>());
    a.agree += got.argmax(1).eq(want.argmax(1)).sum().item<int>();
    a.positions += static_cast<int>(want.size(0));
  }
  return a;
}

}  // namespace

TEST_CASE(
    "int8 InternVL3 and InternVL3.5 fixtures: weight bytes, logit error and top-1 agreement "
    "against float32") {
  for (const std::string fixture : {"internvl", "internvl35"}) {
    CAPTURE(fixture);
    const Agreement a =
        teacher_forced_against_float32(fixture, Numerics{at::kFloat, Quantization::Int8});
    // Measured on the loaded tensors. The fixture's decoder is small next to its vision tower and
    // embeddings (which stay float32), so the whole-model ratio is modest; the scratch is apart.
    MESSAGE(fixture << " weights: float32 " << a.float32_bytes << " bytes, int8 " << a.bytes
                    << " bytes (+ " << a.scratch
                    << " scratch); int8 vs float32, teacher-forced on the reference tokens: max "
                       "relative logit error "
                    << a.worst * 100 << " %, top-1 agreement " << a.agree << "/" << a.positions);
    CHECK(a.bytes < a.float32_bytes);
    CHECK(a.scratch > 0);
    CHECK(a.worst < 0.05);
    CHECK(a.agree >= a.positions * 9 / 10);
  }
}

TEST_CASE(
    "InternVL3.5 in float16 with the residual guard, dense and int8: finite, and float32's "
    "tokens") {
  for (const auto quantization : {Quantization::None, Quantization::Int8}) {
    const Agreement a = teacher_forced_against_float32(
        "internvl35", Numerics{at::kHalf, quantization, Float16Residual::Float32});
    const std::string what = quantization == Quantization::Int8
                                 ? "float16 + float32 residual + int8"
                                 : "float16 + float32 residual";
    MESSAGE(what << " vs float32, teacher-forced: max relative logit error " << a.worst * 100
                 << " %, top-1 agreement " << a.agree << "/" << a.positions);
    CHECK(a.worst < 0.05);
    CHECK(a.agree >= a.positions * 9 / 10);
  }
}

TEST_CASE("parameter_count from config.json equals the checkpoint's tensors, tied and untied") {
  for (const char* layout :
       {"internvl/hf", "internvl/original", "internvl35/hf", "internvl35/original"}) {
    CAPTURE(layout);
    Checkpoint checkpoint(kFixtures / layout);
    const auto config =
        docsift::family::internvl::parse_internvl_config(checkpoint.config(), layout);
    CHECK(docsift::family::internvl::parameter_count(config) ==
          docsift::model::summarize(checkpoint).total.parameters);
    auto tied = config;
    tied.text.tie_embeddings = true;
    CHECK(docsift::family::internvl::parameter_count(config) -
              docsift::family::internvl::parameter_count(tied) ==
          static_cast<std::uint64_t>(config.text.vocab * config.text.hidden));
  }
}

TEST_CASE("already-quantized checkpoints are refused, naming the scheme") {
  for (const auto& [config, scheme] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"quantization_config", {{"quant_method", "gptq"}, {"bits", 4}}}}, "gptq"},
           {{{"quantization_config", {{"quant_method", "awq"}}}}, "awq"},
           {{{"quantization_config", {{"load_in_8bit", true}}}}, "bitsandbytes"},
           {{{"llm_config", {{"quantization_config", {{"quant_method", "fp8"}}}}}},
            "llm_config.quantization_config: fp8"}}) {
    docsift::testing::TempDir dir;
    for (const auto& entry : fs::directory_iterator(kFixtures / "internvl/original")) {
      fs::copy(entry.path(), dir.path() / entry.path().filename());
    }
    auto full = read_json(dir.path() / "config.json");
    full.merge_patch(config);
    std::ofstream(dir.path() / "config.json") << full.dump();
    CHECK_THROWS_WITH_AS(Checkpoint(dir.path()), doctest::Contains(scheme.c_str()),
                         docsift::FileError);
    CHECK_THROWS_WITH_AS(Checkpoint(dir.path()), doctest::Contains("set model.quantization: int8"),
                         docsift::FileError);
  }
}

TEST_CASE(
    "float16 residual guard: the overflow fixture keeps float32's greedy tokens, a float16 stream "
    "does not") {
  const fs::path dir = kFixtures / "internvl-fp16-overflow";
  const auto ref = read_json(dir / "reference.json");
  Checkpoint checkpoint(dir);
  const auto prompt = ref["prompt_ids"].get<std::vector<int32_t>>();
  const auto want = ref["greedy_tokens"].get<std::vector<int32_t>>();
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = static_cast<int>(want.size());
  const auto run = [&](const Numerics& numerics) {
    const InternVLModel model(checkpoint, numerics, at::kCPU);
    return docsift::generate::generate(model, {}, prompt, options);
  };
  const auto fp32 = run(Numerics{at::kFloat});
  const at::Tensor want_logits = at::tensor(ref["first_logits"].get<std::vector<float>>());
  CHECK(max_diff(fp32.first_logits, want_logits) <
        1e-3);  // the fixture loads as transformers built it
  CHECK(fp32.tokens == want);

  const auto guarded = run(Numerics{at::kHalf, Quantization::None, Float16Residual::Float32});
  const auto naive = run(Numerics{at::kHalf, Quantization::None, Float16Residual::Float16});
  const auto clamped = run(Numerics{at::kHalf, Quantization::None, Float16Residual::Clamp});
  const auto non_finite = [](const at::Tensor& t) {
    return t.isfinite().logical_not().sum().item<int64_t>();
  };
  const auto agreeing = [&](const std::vector<int32_t>& tokens) {
    int n = 0;
    for (std::size_t i = 0; i < tokens.size() && i < want.size(); ++i) n += tokens[i] == want[i];
    return n;
  };
  MESSAGE("float16 overflow fixture (residual reaches "
          << ref["max_abs_hidden_per_layer"].back() << "): "
          << "float32 residual: " << non_finite(guarded.first_logits) << " non-finite logits, "
          << agreeing(guarded.tokens) << "/16 tokens as float32, first-logit max diff "
          << max_diff(guarded.first_logits, fp32.first_logits)
          << "; float16 residual: " << non_finite(naive.first_logits) << " non-finite logits of "
          << naive.first_logits.numel() << ", " << agreeing(naive.tokens)
          << "/16 tokens; clamp: " << non_finite(clamped.first_logits) << " non-finite, "
          << agreeing(clamped.tokens) << "/16 tokens, first-logit max diff "
          << max_diff(clamped.first_logits, fp32.first_logits));
  CHECK(non_finite(guarded.first_logits) == 0);
  CHECK(guarded.tokens == want);
  CHECK(non_finite(naive.first_logits) > 0);  // the failure the guard exists for
  CHECK(naive.tokens != want);

  // int8 under float16 with the guard: the same numerics the V100 config uses.
  const auto int8 = run(Numerics{at::kHalf, Quantization::Int8, Float16Residual::Float32});
  MESSAGE("float16 + int8 + float32 residual: " << non_finite(int8.first_logits) << " non-finite, "
                                                << agreeing(int8.tokens)
                                                << "/16 tokens as float32");
  CHECK(non_finite(int8.first_logits) == 0);
}

TEST_CASE("stacked linear layers (q/k/v, gate/up) give each part's output, dense and int8") {
  at::manual_seed(7);
  const at::Tensor x = at::randn({3, 64});
  std::vector<LinearWeight> dense;
  for (const int64_t out : {32, 16, 16})
    dense.push_back({at::randn({out, 64}), {}, at::randn({out})});
  std::vector<LinearWeight> int8;
  for (const auto& d : dense) {
    LinearWeight q = docsift::model::quantize_int8(d.weight, at::kCPU);
    q.bias = d.bias;
    int8.push_back(q);
  }
  for (const auto* parts : {&dense, &int8}) {
    const LinearWeight stacked = docsift::model::stack_outputs(*parts);
    REQUIRE(stacked.out_features() == 64);
    CHECK(stacked.quantized() == parts->front().quantized());
    const at::Tensor y = docsift::model::linear(x, stacked);  // [3, 64]
    int64_t row = 0;
    for (const LinearWeight& p : *parts) {
      // The same rows of the same weights: equal to the part's own matmul up to summation order.
      CHECK(max_diff(y.narrow(1, row, p.out_features()), docsift::model::linear(x, p)) < 1e-4);
      row += p.out_features();
    }
  }
  CHECK_FALSE(
      docsift::model::stack_outputs({dense[0], LinearWeight{}}).defined());  // a missing part
  CHECK_THROWS_AS(docsift::model::stack_outputs({dense[0], int8[1]}), docsift::Error);
  CHECK_THROWS_AS(docsift::model::stack_outputs(
                      {dense[0], LinearWeight{at::randn({8, 32}), {}, at::randn({8})}}),
                  docsift::Error);
}
