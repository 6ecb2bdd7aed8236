// The five tiers of the out-of-memory ladder (docs/memory.md), in ladder order, their names and
// what each means (kTierTraits). They live in the memory layer, not beside the ladder in
// resilience/, because the memory plan (plan.h) prices each tier and sits below the ladder.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/names.h"

namespace docsift::memory {

enum class Tier { Standard, OffloadedCache, Reload, ReloadRetry, Cpu };

inline constexpr Names<Tier, 5> kTierNames{{{Tier::Standard, "standard"},
                                            {Tier::OffloadedCache, "offloaded_cache"},
                                            {Tier::Reload, "reload"},
                                            {Tier::ReloadRetry, "reload_retry"},
                                            {Tier::Cpu, "cpu"}}};

constexpr std::string_view to_string(Tier v) { return name_of(kTierNames, v); }

// Where a tier keeps the KV cache. kWithModel: wholly where the model runs (the device, or the
// host for the cpu tier); kOffloaded: in pinned host memory, a layer at a time through two slots on
// the device (docs/memory.md, "The tier ladder"). The ladder maps it to model::CachePlacement,
// which memory/ cannot name: model/ is not among its uses (docs/architecture.md).
enum class TierCache { kWithModel, kOffloaded };

// What each tier means, in one place: the ladder reads it to place the model and its cache, the
// plan to price a tier. A new tier is a row here, its name above, and nothing else that asks
// which tier it is.
struct TierTraits {
  Tier tier;
  bool on_device;        // the model on the run's device; false: on the host (memory.cpu_dtype)
  TierCache cache;       // where the KV cache lives
  bool reloads_weights;  // the model is unloaded and its weights loaded again before each attempt
  bool retries;  // a second try at the tier before it, as it was (reload_retry: reload once more)
};

inline constexpr std::array<TierTraits, 5> kTierTraits{{
    //                      on_device  cache                   reloads  retries
    {Tier::Standard, true, TierCache::kWithModel, false, false},
    {Tier::OffloadedCache, true, TierCache::kOffloaded, false, false},
    {Tier::Reload, true, TierCache::kOffloaded, true, false},
    {Tier::ReloadRetry, true, TierCache::kOffloaded, true, true},
    {Tier::Cpu, false, TierCache::kWithModel, false, false},
}};

// Both tables list every tier in the enum's order, so traits() is an index.
constexpr bool tier_tables_in_order() {
  for (std::size_t i = 0; i < kTierTraits.size(); ++i) {
    if (kTierTraits[i].tier != static_cast<Tier>(i) || kTierNames[i].first != static_cast<Tier>(i))
      return false;
  }
  return kTierTraits.size() == kTierNames.size();
}
static_assert(tier_tables_in_order(),
              "kTierTraits and kTierNames: one row per Tier, in the enum's order");

constexpr const TierTraits& traits(Tier tier) {
  return kTierTraits[static_cast<std::size_t>(tier)];
}

// The tier `name` names, if any.
constexpr std::optional<Tier> tier_named(std::string_view name) {
  for (const auto& [tier, n] : kTierNames) {
    if (n == name) return tier;
  }
  return std::nullopt;
}

// Every tier name, in ladder order (what memory.tiers and fault specs' tier= accept).
inline std::vector<std::string> tier_names() {
  std::vector<std::string> names;
  for (const auto& [tier, name] : kTierNames) names.emplace_back(name);
  return names;
}

}  // namespace docsift::memory
