// int8 weight-only layers against the unquantized model, measured in one process: load time and
// memory, prefill and decode tokens/s, and accuracy (teacher-forced logits on the reference's
// greedy tokens, and free-running greedy agreement). On a CUDA device it also times the fused
// W8A16 kernel against LibTorch's matmul on the model's own layer shapes (GB/s of weights read),
// the float16 residual guard's cost, and the memory plan against a budget.
//   docsift_bench_int8 MODEL_DIR [--device cpu|cuda:0] [--dtype float32|float16|bfloat16] [--tiles
//   1]
//       [--tokens 64] [--budget-gb G] [--json OUT] [--only reference|int8]
// The reference run is the same dtype unquantized (float32 on the CPU, float16 on a GPU). Not a
// test.
#include <ATen/ops/empty.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_args.h"
#include "docsift/device/devices.h"
#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/memory/cleanup.h"
#include "docsift/memory/device_memory.h"
#include "docsift/memory/host.h"
#include "docsift/memory/plan.h"
#include "docsift/model/linear.h"
#include "docsift/resilience/ladder.h"

using namespace docsift;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
double mib(std::uint64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }

struct Options {
  std::string model, device = "cpu", dtype, json, only;
  int tiles = 1, tokens = 64;
  double budget_gb = 0;
};

at::ScalarType parse_dtype(const std::string& s) {
  if (s == "float32") return at::kFloat;
  if (s == "float16") return at::kHalf;
  if (s == "bfloat16") return at::kBFloat16;
  throw std::runtime_error("--dtype: float32, float16 or bfloat16");
}

struct RunResult {
  nlohmann::json json;
  std::vector<int32_t> tokens;
  at::Tensor forced;  // teacher-forced logits on the reference tokens
};

RunResult measure(family::LoadedModel& engine, at::Device device, const model::Numerics& numerics,
                  const at::Tensor& pixels, const std::vector<int32_t>& prompt, int tokens,
                  const std::vector<int32_t>* reference) {
  RunResult r;
  engine.unload();
  memory::cleanup(device, 0, /*force=*/true);
  memory::reset_peak_host_memory();
  memory::reset_peak_device_memory(device);
  const auto before = memory::read_memory(device);
  auto t = Clock::now();
  engine.load(device, numerics);
  memory::synchronize_device(device);
  const double load_s = seconds_since(t);
  const auto loaded = memory::read_memory(device);
  generate::GenerationOptions o;
  o.max_new_tokens = tokens;                              // no stop ids: exactly `tokens`
  generate::generate(engine.model(), pixels, prompt, o);  // warm-up (kernels, cuBLAS handles)
  memory::reset_peak_device_memory(device);
  const auto result = generate::generate(engine.model(), pixels, prompt, o);
  const auto after = memory::read_memory(device);
  // Steady decode: a run of twice the tokens less this one, per extra token. Both runs pay the
  // first decode step's CUDA graph capture (about 70 ms on the 8B shape), which weighs on 32
  // tokens.
  generate::GenerationOptions twice = o;
  twice.max_new_tokens = 2 * tokens;
  const double steady_s = generate::generate(engine.model(), pixels, prompt, twice).decode_seconds -
                          result.decode_seconds;
  r.tokens = result.tokens;
  r.forced = generate::teacher_forced_logits(engine.model(), pixels, prompt,
                                             reference ? *reference : result.tokens);
  r.json = {
      {"quantization", std::string(to_string(numerics.quantization))},
      {"dtype", std::string(c10::toString(numerics.dtype))},
      {"float16_residual", std::string(to_string(numerics.float16_residual))},
      {"load_s", load_s},
      {"weight_bytes", engine.model().parameter_bytes()},
      {"scratch_bytes", engine.model().scratch_bytes()},
      {"host_rss_before_mb", mib(before.host.rss_bytes)},
      {"host_peak_rss_load_mb", mib(loaded.host.peak_rss_bytes)},
      {"host_rss_loaded_mb", mib(loaded.host.rss_bytes)},
      {"host_peak_rss_run_mb", mib(after.host.peak_rss_bytes)},
      {"device_allocated_loaded_mb", mib(loaded.device.allocated)},
      {"device_peak_allocated_run_mb", mib(after.device.peak_allocated)},
      {"prompt_tokens", result.prompt_tokens},
      {"vision_s", result.vision_seconds},
      {"prefill_s", result.prefill_seconds},
      {"prefill_tokens_per_s", result.prompt_tokens / std::max(1e-9, result.prefill_seconds)},
      {"decode_s", result.decode_seconds},
      {"decode_tokens_per_s", (result.tokens.size() - 1) / std::max(1e-9, result.decode_seconds)},
      {"decode_steady_tokens_per_s", tokens / std::max(1e-9, steady_s)}};
  return r;
}

nlohmann::json compare(const RunResult& ref, const RunResult& run) {
  const at::Tensor rel = run.forced.sub(ref.forced).abs().amax(1).div(ref.forced.abs().amax(1));
  const int agree = run.forced.argmax(1).eq(ref.forced.argmax(1)).sum().item<int>();
  std::size_t prefix = 0;
  while (prefix < ref.tokens.size() && prefix < run.tokens.size() &&
         ref.tokens[prefix] == run.tokens[prefix])
    ++prefix;
  return {{"max_relative_logit_error", rel.max().item<double>()},
          {"mean_relative_logit_error", rel.mean().item<double>()},
          {"top1_agreement", agree},
          {"positions", ref.forced.size(0)},
          {"greedy_identical_prefix", prefix},
          {"non_finite_logits", run.forced.isfinite().logical_not().sum().item<int64_t>()}};
}

// The fused kernel against LibTorch's dense matmul on one [out, in] layer, one activation row:
// microseconds per call and GB/s of weight bytes read.
nlohmann::json time_layer(at::Device device, at::ScalarType dtype, int64_t out, int64_t in) {
  const auto opts = at::TensorOptions().device(device);
  const at::Tensor dense = at::randn({out, in}, opts).mul(0.02).to(dtype);
  const model::LinearWeight q = model::quantize_int8(dense, device);
  const at::Tensor x = at::randn({1, in}, opts).to(dtype);
  const auto time = [&](const std::function<at::Tensor()>& f) {
    for (int i = 0; i < 5; ++i) f();
    memory::synchronize_device(device);
    const int n = 50;
    auto t = Clock::now();
    for (int i = 0; i < n; ++i) f();
    memory::synchronize_device(device);
    return seconds_since(t) / n * 1e6;
  };
  const double dense_us = time([&] { return at::linear(x, dense); });
  const double fused_us =
      time([&] { return model::linear_via(model::Int8Path::kFusedCuda, x, q, nullptr); });
  const double deq_us =
      time([&] { return model::linear_via(model::Int8Path::kDequantize, x, q, nullptr); });
  // docsift's GEMV on the dense weight (model.decode_kernels), and its SwiGLU form reading the same
  // bytes as a stacked gate/up weight; 0 where the kernel declines the shape.
  const model::LinearWeight dense_w{dense, {}, {}};
  const bool gemv_takes = model::fused_gemv(x, dense_w).defined();
  const double gemv_us = gemv_takes ? time([&] { return model::fused_gemv(x, dense_w); }) : 0.0;
  const bool swiglu_takes = model::fused_swiglu_gemv(x, dense_w).defined();
  const double swiglu_us =
      swiglu_takes ? time([&] { return model::fused_swiglu_gemv(x, dense_w); }) : 0.0;
  const double int8_bytes = static_cast<double>(out * in + out * 4),
               dense_bytes = static_cast<double>(dense.nbytes());
  return {{"shape", {out, in}},
          {"dense_us", dense_us},
          {"dense_GBps", dense_bytes / dense_us / 1e3},
          {"gemv16_us", gemv_us},
          {"gemv16_GBps", gemv_takes ? dense_bytes / gemv_us / 1e3 : 0.0},
          {"swiglu_gemv16_us", swiglu_us},
          {"swiglu_gemv16_GBps", swiglu_takes ? dense_bytes / swiglu_us / 1e3 : 0.0},
          {"fused_int8_us", fused_us},
          {"fused_int8_GBps", int8_bytes / fused_us / 1e3},
          {"dequantize_int8_us", deq_us},
          {"speedup_fused_vs_dense", dense_us / fused_us}};
}

// The fused kernel against a float32 matmul of the dequantized weights, every row count it takes
// and every activation dtype, on one layer shape with a bias. Returns the largest relative error.
double check_kernel(at::Device device, int64_t out, int64_t in) {
  const auto opts = at::TensorOptions().device(device);
  model::LinearWeight q = model::quantize_int8(at::randn({out, in}, opts).mul(0.02), device);
  double worst = 0;
  for (const auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    q.bias = at::randn({out}, opts).mul(0.1).to(dtype);
    for (int64_t rows = 1; rows <= 8; ++rows) {
      const at::Tensor x = at::randn({rows, in}, opts).to(dtype);
      const at::Tensor want =
          at::linear(x.to(at::kFloat), q.dense(at::kFloat), q.bias.to(at::kFloat));
      const at::Tensor got = model::linear_via(model::Int8Path::kFusedCuda, x, q, nullptr);
      const double rel =
          got.to(at::kFloat).sub(want).abs().max().item<double>() / want.abs().max().item<double>();
      // float32 accumulation, one rounding to the output dtype: a few ulps of it.
      const double tolerance = dtype == at::kFloat ? 1e-5 : dtype == at::kHalf ? 2e-3 : 1e-2;
      if (rel > tolerance) {
        std::printf(
            "  CHECK FAIL fused kernel [%lld, %lld] %s rows %lld: relative error %.3g > %.3g\n",
            static_cast<long long>(out), static_cast<long long>(in), c10::toString(dtype),
            static_cast<long long>(rows), rel, tolerance);
      }
      worst = std::max(worst, rel / tolerance);
    }
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o;
  for (bench::Args a(argc, argv); a.next();) {
    const std::string f = a.arg();
    if (f == "--device")
      o.device = a.value();
    else if (f == "--dtype")
      o.dtype = a.value();
    else if (f == "--tiles")
      o.tiles = a.int_value();
    else if (f == "--tokens")
      o.tokens = a.int_value();
    else if (f == "--budget-gb")
      o.budget_gb = std::stod(a.value());
    else if (f == "--json")
      o.json = a.value();
    else if (f == "--only")
      o.only = a.value();
    else if (o.model.empty())
      o.model = f;
    else
      a.unknown();
  }
  if (o.model.empty())
    throw std::runtime_error("usage: docsift_bench_int8 MODEL_DIR [--device D] [--dtype T] ...");
  const at::Device device(o.device);
  const bool cuda = device.is_cuda();
  const at::ScalarType dtype =
      parse_dtype(o.dtype.empty() ? (cuda ? "float16" : "float32") : o.dtype);
  nlohmann::json out = {
      {"model", o.model}, {"device", o.device}, {"tiles", o.tiles}, {"new_tokens", o.tokens}};
  if (cuda) {
    const auto status = device::cuda_status();
    if (!status.available) throw std::runtime_error("no CUDA device: " + status.reason);
    out["gpu"] = status.devices.front().name;
  }

  family::LoadedModel engine(o.model);
  const extract::FieldSchema schema =
      extract::load_field_schema("configs/fields/business-documents.yaml");
  // A random page whose tile count is `tiles` (a single tile, or a grid plus the thumbnail).
  at::manual_seed(0);
  const at::Tensor pixels = at::randn({o.tiles, 3, 448, 448}).mul(0.5);
  const auto prompt = engine.chat().encode(extract::build_prompt(schema), o.tiles);
  out["prompt_tokens"] = prompt.size();

  const model::Numerics ref_numerics{dtype};
  if (!o.only.empty()) {
    // One configuration in a fresh process: its load and run memory without another model's
    // freed pages in the figures.
    if (o.only != "reference" && o.only != "int8")
      throw std::runtime_error("--only: reference or int8");
    const model::Numerics n{
        dtype, o.only == "int8" ? model::Quantization::Int8 : model::Quantization::None};
    const RunResult one = measure(engine, device, n, pixels, prompt, o.tokens, nullptr);
    std::printf("%s\n", one.json.dump().c_str());
    if (!o.json.empty()) std::ofstream(o.json) << one.json.dump(2) << '\n';
    return 0;
  }
  const RunResult ref = measure(engine, device, ref_numerics, pixels, prompt, o.tokens, nullptr);
  const RunResult q = measure(engine, device, model::Numerics{dtype, model::Quantization::Int8},
                              pixels, prompt, o.tokens, &ref.tokens);
  out["reference"] = ref.json;
  out["int8"] = q.json;
  out["int8"]["accuracy"] = compare(ref, q);
  out["int8_decode_speedup"] =
      q.json["decode_tokens_per_s"].get<double>() / ref.json["decode_tokens_per_s"].get<double>();
  out["int8_steady_decode_speedup"] = q.json["decode_steady_tokens_per_s"].get<double>() /
                                      ref.json["decode_steady_tokens_per_s"].get<double>();
  out["weight_bytes_ratio"] =
      ref.json["weight_bytes"].get<double>() / q.json["weight_bytes"].get<double>();
  std::printf("%s %s: %d tiles, %zu prompt tokens, %d new tokens\n", o.model.c_str(),
              o.device.c_str(), o.tiles, prompt.size(), o.tokens);
  for (const auto* r : {&ref.json, &q.json}) {
    std::printf(
        "  %-5s %-9s load %6.2f s, weights %8.1f MiB, host peak RSS load %8.1f MiB run %8.1f MiB, "
        "device %8.1f MiB (peak %8.1f), prefill %8.1f tok/s, decode %7.2f tok/s (steady %7.2f)\n",
        (*r)["quantization"].get<std::string>().c_str(), (*r)["dtype"].get<std::string>().c_str(),
        (*r)["load_s"].get<double>(), mib((*r)["weight_bytes"].get<std::uint64_t>()),
        (*r)["host_peak_rss_load_mb"].get<double>(), (*r)["host_peak_rss_run_mb"].get<double>(),
        (*r)["device_allocated_loaded_mb"].get<double>(),
        (*r)["device_peak_allocated_run_mb"].get<double>(),
        (*r)["prefill_tokens_per_s"].get<double>(), (*r)["decode_tokens_per_s"].get<double>(),
        (*r)["decode_steady_tokens_per_s"].get<double>());
  }
  const auto& acc = out["int8"]["accuracy"];
  std::printf("  int8/reference: steady decode %.2fx\n",
              out["int8_steady_decode_speedup"].get<double>());
  std::printf(
      "  int8/reference: decode %.2fx, weight bytes %.2fx smaller; max relative logit error %.2f "
      "%%, top-1 agreement %d/%d (teacher-forced), greedy identical for the first %zu tokens\n",
      out["int8_decode_speedup"].get<double>(), out["weight_bytes_ratio"].get<double>(),
      acc["max_relative_logit_error"].get<double>() * 100, acc["top1_agreement"].get<int>(),
      acc["positions"].get<int>(), acc["greedy_identical_prefix"].get<std::size_t>());

  if (cuda && dtype == at::kHalf) {
    // The residual guard's cost: the same int8 model with a float16 residual stream.
    const RunResult naive =
        measure(engine, device,
                model::Numerics{dtype, model::Quantization::Int8, model::Float16Residual::Float16},
                pixels, prompt, o.tokens, &ref.tokens);
    out["int8_float16_residual"] = naive.json;
    out["int8_float16_residual"]["accuracy"] = compare(ref, naive);
    std::printf(
        "  float16 residual (no guard), int8: decode %.2f tok/s (guard costs %.1f %%), prefill "
        "%.1f tok/s\n",
        naive.json["decode_tokens_per_s"].get<double>(),
        100.0 * (1.0 - q.json["decode_tokens_per_s"].get<double>() /
                           naive.json["decode_tokens_per_s"].get<double>()),
        naive.json["prefill_tokens_per_s"].get<double>());
  }
  bool failed = false;
  if (cuda) {
    // Kernel against cuBLAS on the decoder's layer shapes.
    const auto& c = engine.memory_shape();
    double worst = 0;
    for (const auto& [n, k] :
         std::vector<std::pair<int64_t, int64_t>>{{c.heads * c.head_dim, c.hidden},
                                                  {c.intermediate, c.hidden},
                                                  {c.hidden, c.intermediate},
                                                  {1000, 48}}) {
      worst = std::max(worst, check_kernel(device, n, k));
    }
    failed = worst > 1.0;
    out["kernel_check_worst_error_over_tolerance"] = worst;
    std::printf(
        "  CHECK %s fused kernel equals float32 matmul of the dequantized weights (rows 1-8, "
        "float32/float16/bfloat16, 4 shapes): worst error %.2f of tolerance\n",
        failed ? "FAIL" : "ok", worst);
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{
             {c.heads * c.head_dim, c.hidden},
             {c.kv_heads * c.head_dim, c.hidden},
             {c.intermediate, c.hidden},
             {c.hidden, c.intermediate},
             {2 * c.intermediate, c.hidden},
             {(c.heads + 2 * c.kv_heads) * c.head_dim, c.hidden},
             {c.vocab, c.hidden}}) {
      layers.push_back(time_layer(device, dtype, n, k));
      const auto& l = layers.back();
      std::printf(
          "  layer [%lld, %lld]: cuBLAS %8.1f us (%6.0f GB/s), docsift gemv16 %8.1f us (%6.0f "
          "GB/s), swiglu %8.1f us (%6.0f GB/s), fused int8 %8.1f us (%6.0f GB/s of int8), "
          "dequantize path %8.1f us, fused/dense %.2fx\n",
          static_cast<long long>(n), static_cast<long long>(k), l["dense_us"].get<double>(),
          l["dense_GBps"].get<double>(), l["gemv16_us"].get<double>(),
          l["gemv16_GBps"].get<double>(), l["swiglu_gemv16_us"].get<double>(),
          l["swiglu_gemv16_GBps"].get<double>(), l["fused_int8_us"].get<double>(),
          l["fused_int8_GBps"].get<double>(), l["dequantize_int8_us"].get<double>(),
          l["speedup_fused_vs_dense"].get<double>());
    }
    out["layers"] = layers;
    engine.unload();
    memory::cleanup(device, 0, true);
    const auto idle = memory::read_device_memory(device);
    // What the driver says is used beyond the allocator's reservation: the context, cuBLAS and
    // everything else outside the caching allocator.
    out["cuda_context_bytes"] = idle.driver_total - idle.driver_free - idle.reserved;
    std::printf("  outside the allocator (CUDA context, cuBLAS, kernels): %.1f MiB\n",
                mib(out["cuda_context_bytes"]));
  }
  if (cuda && o.budget_gb > 0) {
    // The reference card's page: budget, plan, ladder from the planned tier, as `run` does it.
    std::printf("%s\n", memory::apply_memory_budget(device, o.budget_gb).c_str());
    resilience::LadderSettings s;
    s.tiers = {memory::Tier::Standard, memory::Tier::OffloadedCache, memory::Tier::Reload,
               memory::Tier::ReloadRetry, memory::Tier::Cpu};
    s.device = device;
    s.dtype = dtype;
    s.quantization = model::Quantization::Int8;
    s.cleanup_threshold_bytes = 1024ull << 20;
    resilience::Ladder ladder(engine, s);
    memory::PlanRequest r;
    r.model = engine.memory_shape();
    r.dtype_bytes = c10::elementSize(dtype);
    r.int8 = true;
    r.tiles = o.tiles;
    r.prompt_tokens = static_cast<std::int64_t>(prompt.size());
    r.max_new_tokens = engine.family().auto_max_new_tokens(schema);
    r.tiers = s.tiers;
    r.device_budget = static_cast<std::uint64_t>(o.budget_gb * 1073741824.0);
    const auto plan = memory::plan_memory(r);
    std::printf("%s", memory::to_text(plan).c_str());
    generate::GenerationOptions g;
    // Random weights never emit a stop token: generate what a minute of decoding allows, at most
    // the auto length the plan counted (the KV cache is still sized for the plan's length).
    const double rate = q.json["decode_tokens_per_s"].get<double>();
    g.max_new_tokens = static_cast<int>(
        std::min<double>(static_cast<double>(r.max_new_tokens), std::max(64.0, rate * 60)));
    const auto run = ladder.run(1, pixels, prompt, g, plan.first_fitting());
    const auto peak = memory::read_device_memory(device);
    std::printf(
        "  budget %.1f GiB, int8 %s, %d tiles, plan's max_new_tokens %lld (generated %d): planned "
        "%s (predicted %.1f MiB), ran at %s in %zu attempt(s), %s; peak allocated %.1f MiB, peak "
        "reserved %.1f MiB, %zu tokens, decode %.2f tok/s\n",
        o.budget_gb, c10::toString(dtype), o.tiles, static_cast<long long>(r.max_new_tokens),
        g.max_new_tokens, std::string(to_string(plan.first_fitting())).c_str(),
        mib(plan.tiers.front().device_bytes), std::string(to_string(run.tier)).c_str(),
        run.attempts.size(), run.ok ? "ok" : run.error.c_str(), mib(peak.peak_allocated),
        mib(peak.peak_reserved), run.result.tokens.size(),
        run.result.tokens.size() / std::max(1e-9, run.result.decode_seconds));
    out["budget"] = {{"budget_gb", o.budget_gb},
                     {"plan", memory::to_json(plan)},
                     {"tier", std::string(to_string(run.tier))},
                     {"ok", run.ok},
                     {"attempts", run.attempts.size()},
                     {"peak_allocated", peak.peak_allocated},
                     {"peak_reserved", peak.peak_reserved},
                     {"tokens", run.result.tokens.size()},
                     {"decode_s", run.result.decode_seconds}};
  }
  if (!o.json.empty()) std::ofstream(o.json) << out.dump(2) << '\n';
  return failed ? 3 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "docsift_bench_int8: %s\n", e.what());
  return 1;
}
