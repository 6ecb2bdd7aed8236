// The five tiers of the out-of-memory ladder (docs/memory.md), in ladder order. They live in the
// memory layer, not beside the ladder in resilience/, because the memory plan (plan.h) prices each
// tier and sits below the ladder.
#pragma once

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

// Every tier name, in ladder order (what memory.tiers and fault specs' tier= accept).
inline std::vector<std::string> tier_names() {
  std::vector<std::string> names;
  for (const auto& [tier, name] : kTierNames) names.emplace_back(name);
  return names;
}

}  // namespace docsift::memory
