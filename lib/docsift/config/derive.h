// Each lower layer's settings, built from a Config in one place: the family's options, the
// ladder's settings, the generation options and the memory-plan request. The layers below take
// their own plain structs and never see a Config (docs/architecture.md).
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "docsift/config/config.h"
#include "docsift/family/family.h"
#include "docsift/generate/generate.h"
#include "docsift/memory/plan.h"
#include "docsift/resilience/ladder.h"

namespace docsift::config {

// The families' own keys (family/settings.h), vision.resample and vision.max_pixels.
family::FamilyOptions family_options(const Config& config);

// memory.tiers, model.dtype, memory.cpu_dtype, the quantizations, the fragmentation threshold, and
// the fault plan of testing.faults plus DOCSIFT_FAULTS. Throws ConfigError for a bad fault plan.
resilience::LadderSettings ladder_settings(const Config& config, c10::Device device);

// generation.*: max_new_tokens is the config's, else `auto_max_new_tokens` (the family's count
// for the field schema, Family::auto_max_new_tokens; `generate` with a free prompt passes 256).
generate::GenerationOptions generation_options(const Config& config, int auto_max_new_tokens,
                                               std::vector<int32_t> stop_ids);

// The plan request for one page of `tiles` tiles and `prompt_tokens` prompt tokens (image tokens
// included), with the config's dtypes, quantizations and tiers. `device_budget`: bytes the
// allocator may use, nullopt when unknown; `device_overhead`: what a card loses outside the
// allocator (inspect plans a whole card, run reads what is left after the context exists).
memory::PlanRequest plan_request(const Config& config, const memory::ModelShape& shape,
                                 std::int64_t tiles, std::int64_t prompt_tokens, int max_new_tokens,
                                 std::optional<std::uint64_t> device_budget,
                                 std::uint64_t device_overhead = 0);

}  // namespace docsift::config
