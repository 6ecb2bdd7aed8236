// GPU memory hygiene and the OOM ladder on a real device (docs/memory.md). Not a test: it
// needs a CUDA GPU and prints figures. With MODEL_DIR an InternVL3 checkpoint (the 1B-shaped
// random one from bench/generate/make_checkpoint.py works):
//   1. steady state: N images in one process under a memory budget, cleanup after each; device
//      counters after cleanup per image;
//   2. per tier: the same image forced to start at each tier: peak memory, wall time, tokens;
//   3. a real out-of-memory: a long generation's KV cache does not fit a budget set between the
//      standard and offloaded peaks; the ladder must recover at offloaded_cache, same tokens.
//   bench_memory_gpu MODEL_DIR [IMAGES=50] [BUDGET_GB=16] [OUT_JSON] [LONG_TOKENS=2048]
#include <ATen/ops/randint.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "docsift/config/config.h"
#include "docsift/device/devices.h"
#include "docsift/family/internvl/tiles.h"
#include "docsift/family/loaded_model.h"
#include "docsift/memory/allocator_env.h"
#include "docsift/memory/cleanup.h"
#include "docsift/resilience/ladder.h"

using namespace docsift;
using memory::Tier;

namespace {

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

at::Tensor page(int seed) {
  at::manual_seed(seed);
  return at::randint(0, 256, {2200, 1700, 3},
                     at::TensorOptions().dtype(at::kByte));  // A4-ish, 12 tiles + thumb
}

resilience::LadderSettings settings(at::Device device) {
  resilience::LadderSettings s;
  s.tiers = {Tier::Standard, Tier::OffloadedCache, Tier::Reload, Tier::ReloadRetry, Tier::Cpu};
  s.device = device;
  // DOCSIFT_BENCH_DTYPE=float32 gives bit-stable GEMMs, to tell cache errors from bf16 near-ties.
  const char* dtype = std::getenv("DOCSIFT_BENCH_DTYPE");
  s.dtype = dtype != nullptr && std::string(dtype) == "float32" ? at::kFloat : at::kBFloat16;
  s.cpu_dtype = at::kFloat;
  s.cleanup_threshold_bytes = 1024ull << 20;
  return s;
}

generate::GenerationOptions greedy(int tokens) {
  generate::GenerationOptions o;
  o.max_new_tokens = tokens;  // no stop ids: exactly `tokens`
  return o;
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_memory_gpu: "
              << std::string(e.what()).substr(0, std::string(e.what()).find('\n')) << '\n';
    return 1;
  }
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_memory_gpu MODEL_DIR [IMAGES=50] [BUDGET_GB=16] [OUT_JSON]\n";
    return 2;
  }
  const std::string model_dir = argv[1];
  const int images = argc > 2 ? std::stoi(argv[2]) : 50;
  const double budget_gb = argc > 3 ? std::stod(argv[3]) : 16.0;
  nlohmann::json out;
  for (const auto& w : memory::apply_allocator_settings("max_split_size_mb:64"))
    std::cerr << "warning: " << w << '\n';
  const at::Device device = device::resolve_device("cuda:0");
  std::cout << memory::apply_memory_budget(device, budget_gb) << '\n';
  family::LoadedModel engine(model_dir);
  resilience::Ladder ladder(engine, settings(device));

  // 1. Steady state (IMAGES = 0 skips parts 1 and 2).
  if (images > 0)
    std::printf("\n1. %d images, one process, budget %.0f GiB, 64 new tokens, cleanup after each\n",
                images, budget_gb);
  nlohmann::json steady = nlohmann::json::array();
  std::uint64_t min_alloc = UINT64_MAX, max_alloc = 0, max_gap = 0;
  for (int i = 1; i <= images; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto pre = family::internvl::preprocess_internvl(page(i), 12);
    if (i == 1) {
      std::printf("%5s %-10s %12s %12s %10s %14s %14s %9s %7s\n", "image", "tier", "alloc MiB",
                  "reserved MiB", "gap MiB", "inact.split MiB", "peak alloc MiB", "host MiB",
                  "sec");
    }
    const auto prompt =
        engine.chat().encode("Extract the fields.", static_cast<int>(pre.pixel_values.size(0)));
    const auto run = ladder.run(i, pre.pixel_values, prompt, greedy(64));
    const auto report = memory::cleanup(device, 1024ull << 20);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto& a = report.after.device;
    if (!run.ok) std::printf("image %d FAILED: %s\n", i, run.error.c_str());
    std::printf("%5d %-10s %12.1f %12.1f %10.1f %14.1f %14.1f %9.0f %7.2f\n", i,
                std::string(to_string(run.tier)).substr(0, 10).c_str(), mib(a.allocated),
                mib(a.reserved), mib(a.gap()), mib(a.inactive_split), mib(run.peak.peak_allocated),
                mib(report.after.host.rss_bytes), seconds);
    if (i > 1) {  // the first image loads the model
      min_alloc = std::min(min_alloc, a.allocated);
      max_alloc = std::max(max_alloc, a.allocated);
    }
    max_gap = std::max(max_gap, a.gap());
    steady.push_back({{"image", i},
                      {"ok", run.ok},
                      {"tier", to_string(run.tier)},
                      {"seconds", seconds},
                      {"cleanup", memory::to_json(report)},
                      {"peak_allocated", run.peak.peak_allocated}});
  }
  if (images > 1)
    std::printf(
        "allocated after cleanup, images 2..%d: min %.3f MiB, max %.3f MiB, spread %llu bytes; max "
        "gap %.1f MiB (threshold 1024 MiB)\n",
        images, mib(min_alloc), mib(max_alloc),
        static_cast<unsigned long long>(max_alloc - min_alloc), mib(max_gap));
  out["steady"] = steady;
  out["steady_spread_bytes"] = max_alloc - min_alloc;

  // 2. Each tier on the same image.
  const auto pre = family::internvl::preprocess_internvl(page(1000), 12);
  const auto prompt =
      engine.chat().encode("Extract the fields.", static_cast<int>(pre.pixel_values.size(0)));
  if (images > 0) std::printf("\n2. one image (13 tiles), started at each tier, 16 new tokens\n");
  if (images > 0)
    std::printf("%-16s %14s %14s %12s %12s %8s %8s %8s %8s %s\n", "tier", "peak alloc MiB",
                "peak resv MiB", "cache dev MiB", "cache host MiB", "vision", "prefill", "decode",
                "total", "tokens");
  std::vector<int32_t> reference;
  nlohmann::json tiers = nlohmann::json::array();
  for (const Tier tier :
       {Tier::Standard, Tier::OffloadedCache, Tier::Reload, Tier::ReloadRetry, Tier::Cpu}) {
    if (images == 0) break;
    memory::cleanup(device, 0, true);
    const auto start = std::chrono::steady_clock::now();
    const auto run = ladder.run(1, pre.pixel_values, prompt, greedy(16), tier);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (tier == Tier::Standard) reference = run.result.tokens;
    const bool same = run.ok && run.result.tokens == reference;
    std::printf("%-16s %14.1f %14.1f %12.1f %12.1f %8.3f %8.3f %8.3f %8.2f %s\n",
                std::string(to_string(tier)).c_str(), mib(run.peak.peak_allocated),
                mib(run.peak.peak_reserved), mib(run.result.cache_device_bytes),
                mib(run.result.cache_host_bytes), run.result.vision_seconds,
                run.result.prefill_seconds, run.result.decode_seconds, seconds,
                !run.ok ? ("FAILED: " + run.error).c_str()
                : same  ? "same as standard"
                        : "DIFFERENT");
    tiers.push_back({{"tier", to_string(tier)},
                     {"ok", run.ok},
                     {"same_tokens", same},
                     {"peak_allocated", run.peak.peak_allocated},
                     {"peak_reserved", run.peak.peak_reserved},
                     {"seconds", seconds},
                     {"vision", run.result.vision_seconds},
                     {"prefill", run.result.prefill_seconds},
                     {"decode", run.result.decode_seconds}});
  }
  out["tiers"] = tiers;

  // 3. A real OOM: measure both peaks unconstrained, then a budget between them.
  const int long_tokens = argc > 5 ? std::stoi(argv[5]) : 2048;
  std::printf(
      "\n3. a long generation (%zu prompt + %d new tokens) under a budget it does not fit at "
      "standard\n",
      prompt.size(), long_tokens);
  memory::set_device_memory_fraction(device, 1.0);
  std::uint64_t peak[2] = {0, 0};
  std::vector<int32_t> long_reference, long_offloaded;
  const auto common_prefix = [](const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    std::size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    return n;
  };
  for (int i = 0; i < 2; ++i) {
    memory::cleanup(device, 0, true);
    const auto run = ladder.run(1, pre.pixel_values, prompt, greedy(long_tokens),
                                i == 0 ? Tier::Standard : Tier::OffloadedCache);
    // Reserved memory carries the allocator's slack; the budget must sit between the real needs.
    peak[i] = run.peak.peak_allocated;
    (i == 0 ? long_reference : long_offloaded) = run.result.tokens;
    std::printf(
        "unconstrained %-16s peak allocated %.1f MiB, KV cache on device %.1f MiB, decode %.2f s\n",
        i == 0 ? "standard" : "offloaded_cache", mib(peak[i]), mib(run.result.cache_device_bytes),
        run.result.decode_seconds);
  }
  std::printf("unconstrained offloaded_cache vs standard: %zu of %zu tokens identical\n",
              common_prefix(long_offloaded, long_reference), long_reference.size());
  const double squeeze =
      static_cast<double>(peak[1] + (peak[0] - peak[1]) / 2) / (1024.0 * 1024.0 * 1024.0);
  memory::cleanup(device, 0, true);
  std::cout << memory::apply_memory_budget(device, squeeze) << '\n';
  const auto start = std::chrono::steady_clock::now();
  const auto run = ladder.run(2, pre.pixel_values, prompt, greedy(long_tokens));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& a : run.attempts) {
    std::printf("  attempt %d %-16s %s %s %.2f s\n", a.number,
                std::string(to_string(a.tier)).c_str(),
                a.ok ? "ok" : std::string(resilience::to_string(a.error_class)).c_str(),
                a.message.substr(0, 110).c_str(), a.seconds);
  }
  const std::size_t same = common_prefix(run.result.tokens, long_reference);
  std::printf(
      "result: %s at %s, %zu of %zu tokens identical to the unconstrained standard run, %.2f s\n",
      run.ok ? "ok" : "FAILED", std::string(to_string(run.tier)).c_str(), same,
      long_reference.size(), seconds);
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& a : run.attempts) attempts.push_back(resilience::to_json(a));
  out["oom_recovery"] = {{"budget_gib", squeeze},       {"ok", run.ok},
                         {"tier", to_string(run.tier)}, {"identical_tokens", same},
                         {"attempts", attempts},        {"peak_standard", peak[0]},
                         {"peak_offloaded", peak[1]}};
  if (argc > 4) std::ofstream(argv[4]) << out.dump(2) << '\n';
  return 0;
}
