// The memory plan's terms (memory/plan.h) a family fills from its checkpoint's config. They live in
// family/, above both the model blocks and the planner, so that neither of those knows the other.
#pragma once

#include <cstdint>

#include "docsift/memory/plan.h"
#include "docsift/model/decoder_config.h"

namespace docsift::family {

// The memory plan's decoder terms, one copy for every family: widths, the self-attention layers
// the KV cache grows in (cross-attention K/V are per image: the family adds them), and the int8
// terms. The family fills in the vision encoder's.
memory::ModelShape decoder_memory_shape(const model::DecoderConfig& c, std::uint64_t parameters);

}  // namespace docsift::family
