// The fault-injection grammar and its firing rules; the tiers' traits; host memory readings.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>

#include "docsift/error.h"
#include "docsift/memory/allocator_env.h"
#include "docsift/memory/host.h"
#include "docsift/resilience/fault_spec.h"

using docsift::resilience::FaultPlan;
using docsift::resilience::FaultPoint;
using docsift::resilience::FaultSite;

using docsift::memory::Tier;

TEST_CASE("fault plan: the issue's example and each qualifier") {
  const auto plan = FaultPlan::parse(
      "oom@prefill:image=2:tier=standard,oom@prefill:image=2:tier=offloaded_cache");
  REQUIRE(plan.specs().size() == 2);
  CHECK(plan.match({FaultPoint::kPrefill, 2, Tier::Standard, 1}) != nullptr);
  CHECK(plan.match({FaultPoint::kPrefill, 2, Tier::OffloadedCache, 2}) !=
        nullptr);  // tier= fires on any attempt
  CHECK(plan.match({FaultPoint::kPrefill, 2, Tier::Reload, 3}) == nullptr);
  CHECK(plan.match({FaultPoint::kPrefill, 1, Tier::Standard, 1}) == nullptr);  // another image
  CHECK(plan.match({FaultPoint::kVision, 2, Tier::Standard, 1}) == nullptr);   // another point

  // No tier= or attempt=: first attempt only, so the ladder's retry succeeds.
  const auto once = FaultPlan::parse("oom@vision");
  CHECK(once.match({FaultPoint::kVision, 1, Tier::Standard, 1}) != nullptr);
  CHECK(once.match({FaultPoint::kVision, 1, Tier::OffloadedCache, 2}) == nullptr);
  CHECK(once.match({FaultPoint::kVision, 7, Tier::Standard, 1}) !=
        nullptr);  // every image's first attempt

  const auto step = FaultPlan::parse("oom@decode:step=5");
  CHECK(step.match({FaultPoint::kDecode, 1, Tier::Standard, 1, 4}) == nullptr);
  CHECK(step.match({FaultPoint::kDecode, 1, Tier::Standard, 1, 5}) != nullptr);

  const auto attempt = FaultPlan::parse("oom@load:attempt=3");
  CHECK(attempt.match({FaultPoint::kLoad, 1, Tier::Reload, 3}) != nullptr);
  CHECK(attempt.match({FaultPoint::kLoad, 1, Tier::Standard, 1}) == nullptr);
  CHECK(FaultPlan::parse("").empty());
  // crash and hang: at the worker's start of the image by default, on the supervisor's first
  // attempt.
  const auto crash = FaultPlan::parse("crash@image=2,hang@decode:image=3:step=2");
  CHECK(crash.needs_isolation());
  CHECK_FALSE(FaultPlan::parse("oom@prefill").needs_isolation());
  REQUIRE(crash.specs().size() == 2);
  CHECK((crash.specs()[0].kind == docsift::resilience::FaultKind::kCrash));
  CHECK((crash.specs()[0].point == FaultPoint::kStart));
  CHECK(crash.match({FaultPoint::kStart, 2, std::nullopt, 1, 0, 1}) != nullptr);
  CHECK(crash.match({FaultPoint::kStart, 2, std::nullopt, 1, 0, 2}) ==
        nullptr);  // the retry in a fresh worker
  CHECK(crash.match({FaultPoint::kStart, 1, std::nullopt, 1, 0, 1}) == nullptr);
  CHECK((crash.specs()[1].kind == docsift::resilience::FaultKind::kHang));
  CHECK(crash.match({FaultPoint::kDecode, 3, Tier::Standard, 1, 2, 1}) == &crash.specs()[1]);
  const auto second = FaultPlan::parse("crash@image=4:attempt=2");
  CHECK(second.match({FaultPoint::kStart, 4, std::nullopt, 1, 0, 2}) != nullptr);
  CHECK(second.match({FaultPoint::kStart, 4, std::nullopt, 1, 0, 1}) == nullptr);
}

TEST_CASE("fault plan: tier= is a typed tier, and a site without one matches no tier=") {
  const auto plan =
      FaultPlan::parse("crash@prefill:image=2:tier=reload_retry,crash@image=3:tier=standard");
  REQUIRE(plan.specs().size() == 2);
  CHECK(plan.specs()[0].tier == Tier::ReloadRetry);
  CHECK(plan.match({FaultPoint::kPrefill, 2, Tier::ReloadRetry, 4, 0, 1}) == &plan.specs()[0]);
  CHECK(plan.match({FaultPoint::kPrefill, 2, Tier::Reload, 3, 0, 1}) == nullptr);
  // At the worker's start of an image no tier has been chosen yet: a tier= there never fires.
  CHECK(plan.match({FaultPoint::kStart, 3, std::nullopt, 1, 0, 1}) == nullptr);
  CHECK_THROWS_WITH_AS(FaultPlan::parse("oom@prefill:tier=offloaded"),
                       doctest::Contains("unknown tier \"offloaded\" (known: standard, "
                                         "offloaded_cache, reload, reload_retry, cpu)"),
                       docsift::ConfigError);
}

TEST_CASE("tier traits: one row per tier, what docs/memory.md says each tier does") {
  using docsift::memory::TierCache;
  using docsift::memory::traits;
  struct Row {
    Tier tier;
    bool on_device;
    TierCache cache;
    bool reloads_weights, retries;
  };
  const Row rows[] = {
      {Tier::Standard, true, TierCache::kWithModel, false,
       false},  // model and KV cache on the device
      {Tier::OffloadedCache, true, TierCache::kOffloaded, false,
       false},  // KV cache in pinned host memory
      {Tier::Reload, true, TierCache::kOffloaded, true,
       false},  // weights reloaded; offloaded cache
      {Tier::ReloadRetry, true, TierCache::kOffloaded, true, true},  // the same once more
      {Tier::Cpu, false, TierCache::kWithModel, false, false},       // the model on the CPU
  };
  REQUIRE(docsift::memory::kTierTraits.size() == std::size(rows));
  for (const Row& row : rows) {
    CAPTURE(docsift::memory::to_string(row.tier));
    CHECK(traits(row.tier).tier == row.tier);
    CHECK(traits(row.tier).on_device == row.on_device);
    CHECK((traits(row.tier).cache == row.cache));
    CHECK(traits(row.tier).reloads_weights == row.reloads_weights);
    CHECK(traits(row.tier).retries == row.retries);
    CHECK(docsift::memory::tier_named(docsift::memory::to_string(row.tier)) == row.tier);
  }
  CHECK_FALSE(docsift::memory::tier_named("gpu").has_value());
  // A retry repeats the tier before it in everything but the count.
  const auto& retry = traits(Tier::ReloadRetry);
  const auto& reload = traits(Tier::Reload);
  CHECK((retry.on_device == reload.on_device && retry.cache == reload.cache &&
         retry.reloads_weights == reload.reloads_weights));
}

TEST_CASE("fault plan: malformed specs are refused with the spec and the problem named") {
  const auto refused = [](const char* text, const char* needle) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(FaultPlan::parse(text), doctest::Contains(needle), docsift::ConfigError);
  };
  refused("oom", "expected KIND@POINT");
  refused("boom@prefill", "unknown kind \"boom\"");
  refused("crash@", "unknown point \"\"");
  refused("oom@start", "unknown point \"start\"");
  refused("oom@softmax", "unknown point \"softmax\"");
  refused("oom@prefill:tier=gpu", "unknown tier \"gpu\" (known: standard, offloaded_cache");
  refused("oom@prefill:image=0", "image must be a positive integer");
  refused("oom@prefill:image=x", "image must be a positive integer");
  refused("oom@prefill:step=2", "step= only applies to decode");
  refused("oom@prefill:image=1:image=2", "image given twice");
  refused("oom@prefill:colour=red", "unknown qualifier \"colour\"");
  refused("oom@prefill,", "expected KIND@POINT");
}

TEST_CASE("host memory: RSS follows touched memory, peak is at least RSS") {
  const auto before = docsift::memory::read_host_memory();
  REQUIRE(before.peak_rss_bytes > 0);
  CHECK(before.peak_rss_bytes >= before.rss_bytes);
  constexpr std::size_t kBytes = 256u << 20;
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);  // touch every page so it is resident
  const auto during = docsift::memory::read_host_memory();
  CHECK(during.rss_bytes >= before.rss_bytes + kBytes * 9 / 10);
  CHECK(during.peak_rss_bytes >= during.rss_bytes);
  CHECK(block[kBytes - 1] == 1);
}

TEST_CASE("allocator settings go into the environment, with a warning when the user's differ") {
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  ::unsetenv("PYTORCH_ALLOC_CONF");
  CHECK(docsift::memory::apply_allocator_settings("max_split_size_mb:64").empty());
  CHECK(std::string(std::getenv("PYTORCH_CUDA_ALLOC_CONF")) == "max_split_size_mb:64");
  CHECK(std::getenv("PYTORCH_ALLOC_CONF") ==
        nullptr);  // not created: LibTorch 2.4 does not read it

  ::setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 1);
  ::setenv("PYTORCH_ALLOC_CONF", "max_split_size_mb:64", 1);
  const auto warnings = docsift::memory::apply_allocator_settings("max_split_size_mb:64");
  REQUIRE(warnings.size() == 1);  // PYTORCH_ALLOC_CONF already agreed
  CHECK(warnings[0].find("PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\"") !=
        std::string::npos);
  CHECK(warnings[0].find("--set memory.allocator") != std::string::npos);
  CHECK(std::string(std::getenv("PYTORCH_CUDA_ALLOC_CONF")) == "max_split_size_mb:64");

  ::setenv("PYTORCH_CUDA_ALLOC_CONF", "mine", 1);
  CHECK(docsift::memory::apply_allocator_settings("")
            .empty());  // empty setting: leave the environment alone
  CHECK(std::string(std::getenv("PYTORCH_CUDA_ALLOC_CONF")) == "mine");
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  ::unsetenv("PYTORCH_ALLOC_CONF");
}
