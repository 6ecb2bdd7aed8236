// The out-of-memory ladder on the CPU: every tier path reached through injected faults (the real
// c10::OutOfMemoryError), the offloaded KV cache against the device cache, OOM classification of
// real exceptions, the memory plan, cleanup, and host memory across 30 consecutive images.
#include <ATen/ops/empty.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <c10/util/Exception.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/family/internvl/model.h"
#include "docsift/family/internvl/tiles.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/keys.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/memory/cleanup.h"
#include "docsift/memory/plan.h"
#include "docsift/model/kv_cache.h"
#include "docsift/resilience/ladder.h"
#include "docsift/resilience/oom.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::memory::Tier;
using docsift::resilience::ErrorClass;
using docsift::resilience::FaultPlan;
using docsift::resilience::ImageRun;
using docsift::resilience::Ladder;
using docsift::resilience::LadderSettings;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/internvl";
const std::vector<Tier> kAllTiers{Tier::Standard, Tier::OffloadedCache, Tier::Reload,
                                  Tier::ReloadRetry, Tier::Cpu};

struct Input {
  at::Tensor pixel_values;
  std::vector<int32_t> prompt;
};

Input input(const docsift::family::LoadedModel& engine, const std::string& image, int max_tiles) {
  auto pre = docsift::family::internvl::preprocess_internvl(
      docsift::image::read_rgb_image(kFixtures / "images" / image), max_tiles);
  const int tiles = static_cast<int>(pre.pixel_values.size(0));
  return {pre.pixel_values, engine.chat().encode("Describe the document.", tiles)};
}

docsift::generate::GenerationOptions greedy(int tokens) {
  docsift::generate::GenerationOptions o;
  o.max_new_tokens = tokens;  // no stop ids: exactly `tokens` tokens, so every run is comparable
  return o;
}

LadderSettings settings(const std::string& faults) {
  LadderSettings s;
  s.tiers = kAllTiers;
  s.device = at::kCPU;
  s.dtype = at::kFloat;
  s.cpu_dtype = at::kFloat;
  s.faults = FaultPlan::parse(faults);
  return s;
}

std::vector<std::string> tiers_tried(const ImageRun& run) {
  std::vector<std::string> names;
  for (const auto& a : run.attempts) names.emplace_back(to_string(a.tier));
  return names;
}

}  // namespace

TEST_CASE(
    "offloaded KV cache returns what the device cache returns, over prefill and decode, odd layer "
    "count") {
  const docsift::model::KVCacheShape shape{5, 2, 8, 20};
  const auto options = at::TensorOptions().dtype(at::kFloat);
  docsift::model::DeviceKVCache device(shape, options);
  docsift::model::OffloadedKVCache offloaded(shape, options);
  CHECK(offloaded.device_bytes() * 5 == device.device_bytes() * 2);  // two layer slots of five
  CHECK(offloaded.host_bytes() == device.device_bytes());
  CHECK(device.host_bytes() == 0);
  at::manual_seed(3);
  for (const int64_t t : {7, 1, 1, 1, 4, 1}) {  // a prefill, decode steps, a second chunk
    for (int64_t layer = 0; layer < shape.layers; ++layer) {
      const at::Tensor k = at::randn({1, 2, t, 8}), v = at::randn({1, 2, t, 8});
      const auto [dk, dv] = device.append(layer, k, v);
      const auto [ok, ov] = offloaded.append(layer, k, v);
      REQUIRE(ok.sizes() == dk.sizes());
      CHECK(ok.equal(dk));
      CHECK(ov.equal(dv));
    }
    device.commit(t);
    offloaded.commit(t);
  }
  CHECK(offloaded.length() == 15);
  CHECK_THROWS_WITH_AS(offloaded.append(0, at::randn({1, 2, 6, 8}), at::randn({1, 2, 6, 8})),
                       doctest::Contains("exceed its 20-token capacity"), docsift::Error);
}

TEST_CASE(
    "ladder: each tier reached through injected OOM gives the standard tier's greedy tokens") {
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "many_tiles.png", 6);
  Ladder plain(engine, settings(""));
  const ImageRun standard = plain.run(1, in.pixel_values, in.prompt, greedy(12));
  REQUIRE(standard.ok);
  CHECK(standard.tier == Tier::Standard);
  CHECK(standard.attempts.size() == 1);
  CHECK(standard.result.tokens.size() == 12);

  struct Case {
    std::string faults;
    std::vector<std::string> tried;
  };
  const std::vector<Case> cases{
      {"oom@prefill:image=1", {"standard", "offloaded_cache"}},
      {"oom@vision:tier=standard,oom@decode:step=5:tier=offloaded_cache",
       {"standard", "offloaded_cache", "reload"}},
      {"oom@load:image=1", {"standard", "offloaded_cache"}},
      {"oom@prefill:tier=standard,oom@prefill:tier=offloaded_cache,oom@load:tier=reload",
       {"standard", "offloaded_cache", "reload", "reload_retry"}},
      {"oom@decode:step=1:attempt=1,oom@decode:step=2:attempt=2,oom@vision:attempt=3,oom@prefill:"
       "attempt=4",
       {"standard", "offloaded_cache", "reload", "reload_retry", "cpu"}},
  };
  const int alive = docsift::family::internvl::InternVLModel::live_instances();  // `engine`'s model
  for (const Case& c : cases) {
    CAPTURE(c.faults);
    docsift::family::LoadedModel fresh(kFixtures / "hf");
    Ladder ladder(fresh, settings(c.faults));
    const ImageRun run = ladder.run(1, in.pixel_values, in.prompt, greedy(12));
    REQUIRE(run.ok);
    CHECK(tiers_tried(run) == c.tried);
    CHECK(run.tier == run.attempts.back().tier);
    CHECK(run.result.tokens == standard.result.tokens);
    for (std::size_t i = 0; i + 1 < run.attempts.size(); ++i) {
      CHECK_FALSE(run.attempts[i].ok);
      CHECK(run.attempts[i].error_class == ErrorClass::kAllocatorOom);
      CHECK(run.attempts[i].message.find("CUDA out of memory") != std::string::npos);
      CHECK(run.attempts[i].message.find("injected by DOCSIFT_FAULTS") != std::string::npos);
      CHECK(run.attempts[i].memory.host.rss_bytes > 0);
    }
    // Offloading tiers used host storage for the cache; the others did not.
    const bool offloaded =
        docsift::memory::traits(run.tier).cache == docsift::memory::TierCache::kOffloaded;
    CHECK((run.result.cache_host_bytes > 0) == offloaded);
    // A reload destroyed the old model before building the new one: one more model alive, not two.
    CHECK(docsift::family::internvl::InternVLModel::live_instances() == alive + 1);
  }
}

TEST_CASE(
    "ladder: a non-OOM error fails the image at once, exhausted tiers are recorded, the next image "
    "runs") {
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "many_tiles.png", 6);
  const Input small = input(engine, "one_tile.png", 6);
  Ladder ladder(engine,
                settings("oom@prefill:image=2:tier=standard,oom@prefill:image=2:tier=offloaded_"
                         "cache,oom@prefill:image=2:tier=reload,oom@prefill:image=2:tier=reload_"
                         "retry,oom@prefill:image=2:tier=cpu,oom@vision:image=4:tier=standard"));
  // Image 1: the prompt's image tokens do not match the pixels (a bug, not memory): one attempt.
  const ImageRun mismatch = ladder.run(1, small.pixel_values, in.prompt, greedy(4));
  CHECK_FALSE(mismatch.ok);
  CHECK_FALSE(mismatch.fatal);
  REQUIRE(mismatch.attempts.size() == 1);
  CHECK(mismatch.attempts[0].error_class == ErrorClass::kOther);
  CHECK(mismatch.error.find("image tokens but the image gives") != std::string::npos);

  // Image 2: every tier runs out of memory; all five attempts are kept.
  const ImageRun exhausted = ladder.run(2, in.pixel_values, in.prompt, greedy(4));
  CHECK_FALSE(exhausted.ok);
  CHECK(tiers_tried(exhausted) ==
        std::vector<std::string>{"standard", "offloaded_cache", "reload", "reload_retry", "cpu"});
  CHECK(exhausted.error.find("out of memory on every tier (5 attempts)") != std::string::npos);

  // Image 3 starts at standard again and succeeds there.
  const ImageRun next = ladder.run(3, in.pixel_values, in.prompt, greedy(4));
  CHECK(next.ok);
  CHECK(tiers_tried(next) == std::vector<std::string>{"standard"});

  // Image 4 escalates once; image 5 is back at standard; a plan's start tier is honoured.
  CHECK(tiers_tried(ladder.run(4, in.pixel_values, in.prompt, greedy(4))) ==
        std::vector<std::string>{"standard", "offloaded_cache"});
  CHECK(tiers_tried(ladder.run(5, in.pixel_values, in.prompt, greedy(4))) ==
        std::vector<std::string>{"standard"});
  CHECK(tiers_tried(ladder.run(6, in.pixel_values, in.prompt, greedy(4), Tier::Reload)) ==
        std::vector<std::string>{"reload"});
}

TEST_CASE(
    "ladder: Qwen3-VL (the family interface only) takes every tier through injected OOM with the "
    "standard tier's tokens") {
  const fs::path qwen = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen3vl";
  docsift::family::LoadedModel engine(qwen / "tf5");
  const docsift::family::ImageInputs image =
      engine.family().preprocess(docsift::image::read_rgb_image(qwen / "images/mid.png"), 1);
  const auto prompt = engine.chat().encode("Describe the document.", image.prompt_units);
  Ladder plain(engine, settings(""));
  const ImageRun standard = plain.run(1, image, prompt, greedy(12));
  REQUIRE(standard.ok);
  CHECK(standard.tier == Tier::Standard);
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"oom@prefill:image=1", {"standard", "offloaded_cache"}},
      {"oom@vision:tier=standard,oom@decode:step=5:tier=offloaded_cache",
       {"standard", "offloaded_cache", "reload"}},
      {"oom@decode:step=1:attempt=1,oom@decode:step=2:attempt=2,oom@vision:attempt=3,oom@prefill:"
       "attempt=4",
       {"standard", "offloaded_cache", "reload", "reload_retry", "cpu"}},
  };
  for (const auto& [faults, tried] : cases) {
    CAPTURE(faults);
    docsift::family::LoadedModel fresh(qwen / "tf5");
    Ladder ladder(fresh, settings(faults));
    const ImageRun run = ladder.run(1, image, prompt, greedy(12));
    REQUIRE(run.ok);
    CHECK(tiers_tried(run) == tried);
    CHECK(run.result.tokens == standard.result.tokens);
    const bool offloaded =
        docsift::memory::traits(run.tier).cache == docsift::memory::TierCache::kOffloaded;
    CHECK((run.result.cache_host_bytes > 0) == offloaded);
  }
}

TEST_CASE("ladder: a model that cannot be loaded is fatal, not retried") {
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "one_tile.png", 1);
  LadderSettings s = settings("");
  s.device =
      at::Device(at::kCUDA, 63);  // no such device here or on any GPU machine: not a memory problem
  Ladder ladder(engine, s);
  const ImageRun run = ladder.run(1, in.pixel_values, in.prompt, greedy(2));
  CHECK_FALSE(run.ok);
  CHECK(run.fatal);
  CHECK(run.attempts.size() == 1);
}

TEST_CASE(
    "ladder: a requested stop is the base layer's StopRequested, passed on, never a failed "
    "attempt") {
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "one_tile.png", 1);
  // An out-of-memory first, so the stop comes on the second tier: the ladder must not walk on.
  Ladder ladder(engine, settings("oom@prefill:tier=standard"));
  docsift::generate::GenerationOptions options = greedy(2);
  int asked = 0;
  options.interrupt = [&asked] {
    return ++asked > 2;
  };  // vision and prefill at standard, then stop
  CHECK_THROWS_WITH_AS(ladder.run(1, in.pixel_values, in.prompt, options),
                       "generation interrupted: a stop was requested", docsift::StopRequested);
  CHECK(asked == 3);
}

TEST_CASE("OOM classification of real exceptions and their message shapes") {
  using docsift::resilience::classify;
  const auto of = [](auto&& thrower) {
    try {
      thrower();
    } catch (...) {
      return classify(std::current_exception()).error_class;
    }
    return ErrorClass::kOther;
  };
  // A real host allocation failure from LibTorch's CPU allocator (4 PiB).
  CHECK(of([] { (void)at::empty({int64_t{1} << 50}, at::kFloat); }) == ErrorClass::kHostAlloc);
  CHECK(of([] { throw std::bad_alloc(); }) == ErrorClass::kHostAlloc);
  CHECK(of([] {
          TORCH_CHECK_WITH(OutOfMemoryError, false,
                           "CUDA out of memory. Tried to allocate 20.00 MiB");
        }) == ErrorClass::kAllocatorOom);
  CHECK(of([] {
          TORCH_CHECK(false,
                      "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`");
        }) == ErrorClass::kCublasAlloc);
  CHECK(of([] {
          TORCH_CHECK(false,
                      "cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if ...");
        }) == ErrorClass::kCudnnAlloc);
  CHECK(of([] {
          TORCH_CHECK(false, "CUDA error: out of memory\nCUDA kernel errors might be ...");
        }) == ErrorClass::kAcceleratorAlloc);
  CHECK(of([] { TORCH_CHECK(false, "shape mismatch"); }) == ErrorClass::kOther);
  CHECK(of([] { throw docsift::FileError("x.safetensors: truncated"); }) == ErrorClass::kOther);
  CHECK_FALSE(docsift::resilience::is_out_of_memory(ErrorClass::kOther));
  CHECK(docsift::resilience::is_out_of_memory(ErrorClass::kCudnnAlloc));
}

TEST_CASE("memory plan: offloading moves the KV cache to the host, budgets decide where to start") {
  docsift::memory::PlanRequest r;
  // InternVL3-8B (docs/models.md, "Model sizes"): Qwen2.5-7B decoder, InternViT-300M.
  r.model = {7'940'000'000, 28, 28, 4, 128, 3584, 18944, 151674, 1024, 16, 4096, 1025, 448};
  r.dtype_bytes = 2;
  r.cpu_dtype_bytes = 4;
  r.tiles = 13;
  r.prompt_tokens = 13 * 256 + 600;
  r.max_new_tokens = 1250;
  r.tiers = kAllTiers;
  r.device_budget = std::uint64_t{16} << 30;
  const auto plan = docsift::memory::plan_memory(r);
  REQUIRE(plan.tiers.size() == 5);
  const auto& standard = plan.tiers[0];
  const auto& offloaded = plan.tiers[1];
  // KV: 2 · 28 layers · 4 heads · 128 · 2 bytes = 57,344 bytes per token.
  CHECK(standard.kv_cache == 57'344ull * (13 * 256 + 600 + 1250));
  CHECK(offloaded.kv_cache == standard.kv_cache / 28 * 2);
  CHECK(offloaded.host_bytes == standard.kv_cache);
  CHECK(plan.tiers[4].device_bytes == 0);
  CHECK(plan.tiers[4].weights == 7'940'000'000ull * 4);
  CHECK(standard.weights == 15'880'000'000ull);
  CHECK_FALSE(standard.fits);  // 15.9 GB of weights alone leave no room on a 16 GiB card
  CHECK(plan.first_fitting() == Tier::Cpu);
  r.device_budget = std::uint64_t{24} << 30;
  CHECK(docsift::memory::plan_memory(r).first_fitting() == Tier::Standard);
  r.device_budget.reset();
  CHECK(docsift::memory::plan_memory(r).first_fitting() == Tier::Standard);
  CHECK(docsift::memory::to_text(plan).find("offloaded_cache") != std::string::npos);
}

TEST_CASE("30 consecutive images in one process: host RSS after cleanup stays flat") {
  docsift::family::LoadedModel engine(kFixtures / "original");
  Ladder ladder(engine, settings(""));
  std::vector<std::uint64_t> after;
  std::uint64_t before_first = 0, peak_first = 0;
  for (int image = 1; image <= 30; ++image) {
    if (image == 1) before_first = docsift::memory::read_host_memory().rss_bytes;
    // Each image as the runner sees it: a decoded 3000×4000 RGB page (36 MB), its 13 tiles, the
    // prompt with 3,328 image tokens, generation through the ladder, then cleanup.
    const at::Tensor page =
        at::randint(0, 256, {3000, 4000, 3}, at::TensorOptions().dtype(at::kByte));
    const auto pre = docsift::family::internvl::preprocess_internvl(page, 12);
    const auto prompt =
        engine.chat().encode("Describe the document.", static_cast<int>(pre.pixel_values.size(0)));
    const ImageRun run = ladder.run(image, pre.pixel_values, prompt, greedy(8));  // resets the peak
    REQUIRE(run.ok);
    const auto report = docsift::memory::cleanup(at::kCPU, 1u << 30);
    after.push_back(report.after.host.rss_bytes);
    if (image == 1) peak_first = report.before.host.peak_rss_bytes;
  }
  const double mb = 1024.0 * 1024.0;
  const double growth =
      (static_cast<double>(after.back()) - static_cast<double>(after.front())) / mb;
  const double transient =
      (static_cast<double>(peak_first) - static_cast<double>(before_first)) / mb;
  MESSAGE("host RSS after cleanup: image 1 "
          << after.front() / mb << " MB, image 30 " << after.back() / mb << " MB, growth " << growth
          << " MB; image 1 peaked " << transient << " MB above the RSS before it");
  CHECK(transient > 32.0);  // the bound below is small next to what one image allocates
  CHECK(growth <= 8.0);
  for (std::size_t i = 1; i < after.size(); ++i) CHECK(after[i] <= after.front() + (8u << 20));
}

TEST_CASE(
    "ladder with int8: the reload tiers reload int8, the cpu tier follows "
    "memory.cpu_quantization") {
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "one_tile.png", 1);
  using docsift::model::Quantization;
  // standard fails, offloaded_cache fails, reload succeeds: the reloaded model is int8 again.
  LadderSettings s = settings("oom@prefill:tier=standard,oom@prefill:tier=offloaded_cache");
  s.quantization = Quantization::Int8;
  Ladder ladder(engine, s);
  const ImageRun reloaded = ladder.run(1, in.pixel_values, in.prompt, greedy(4));
  REQUIRE(reloaded.ok);
  CHECK(reloaded.tier == Tier::Reload);
  CHECK((engine.model().numerics().quantization == Quantization::Int8));
  const int loads = engine.loads();
  // Every device tier fails: the cpu tier reloads unquantized (as the reference), or int8 when
  // asked.
  for (const auto cpu_quantization : {Quantization::None, Quantization::Int8}) {
    LadderSettings c = settings(
        "oom@prefill:tier=standard,oom@prefill:tier=offloaded_cache,oom@prefill:tier=reload,oom@"
        "prefill:tier=reload_retry");
    c.quantization = Quantization::Int8;
    c.cpu_quantization = cpu_quantization;
    c.cpu_dtype =
        at::kBFloat16;  // differs from the device tiers' dtype, so the cpu tier must reload
    Ladder to_cpu(engine, c);
    const ImageRun run = to_cpu.run(1, in.pixel_values, in.prompt, greedy(4));
    REQUIRE(run.ok);
    CHECK(run.tier == Tier::Cpu);
    CHECK((engine.model().numerics().quantization == cpu_quantization));
    CHECK((engine.model().dtype() == at::kBFloat16));
  }
  CHECK(engine.loads() > loads);
}

TEST_CASE(
    "ladder with keys decoding: OOM in an extend walks the tiers, each gives the standard tier's "
    "answer") {
  const auto schema = docsift::extract::load_field_schema(fs::path(DOCSIFT_SOURCE_DIR) /
                                                          "tests/fixtures/keys/schema.yaml");
  docsift::family::LoadedModel engine(kFixtures / "hf");
  const Input in = input(engine, "one_tile.png", 6);
  docsift::generate::GenerationOptions options;
  options.keys = std::make_shared<const docsift::generate::KeyPlan>(
      docsift::generate::make_key_plan(schema, engine.tokenizer()));
  options.stop_ids = engine.chat().stop_ids();
  Ladder plain(engine, settings(""));
  const ImageRun standard = plain.run(1, in.pixel_values, in.prompt, options);
  REQUIRE(standard.ok);
  REQUIRE(standard.result.extends == 4);  // DOCUMENT_TYPE and the three fields of its type
  struct Case {
    std::string faults;
    std::vector<std::string> tried;
  };
  const std::vector<Case> cases{
      {"oom@extend:step=1:image=1", {"standard", "offloaded_cache"}},
      {"oom@extend:step=3:attempt=1,oom@extend:step=2:attempt=2,oom@extend:step=4:attempt=3,oom@"
       "extend:step=1:attempt=4",
       {"standard", "offloaded_cache", "reload", "reload_retry", "cpu"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.faults);
    docsift::family::LoadedModel fresh(kFixtures / "hf");
    Ladder ladder(fresh, settings(c.faults));
    const ImageRun run = ladder.run(1, in.pixel_values, in.prompt, options);
    REQUIRE(run.ok);
    CHECK(tiers_tried(run) == c.tried);
    CHECK(run.result.tokens == standard.result.tokens);
    CHECK(
        docsift::generate::keyed_answer(*options.keys, run.result.values, fresh.tokenizer()) ==
        docsift::generate::keyed_answer(*options.keys, standard.result.values, engine.tokenizer()));
    for (std::size_t i = 0; i + 1 < run.attempts.size(); ++i) {
      CHECK(run.attempts[i].error_class == ErrorClass::kAllocatorOom);
      CHECK(run.attempts[i].message.find("injected by DOCSIFT_FAULTS") != std::string::npos);
    }
  }
}
