// The memory plan's terms (memory/plan.h) a family fills from its checkpoint's config. They live in
// family/, above both the model blocks and the planner, so that neither of those knows the other.
#pragma once

#include <cstdint>

#include "docsift/memory/plan.h"
#include "docsift/model/decoder_config.h"

namespace docsift::family {

// The memory plan's decoder terms, one copy for every family: widths, the decoder's own layers
// the KV cache grows in, and their int8 terms with lm_head's. The family fills in the vision
// encoder's, and adds what its own layers (DecoderConfig::family_layers) hold: their int8 terms,
// their per-image state (cross-attention K/V).
memory::ModelShape decoder_memory_shape(const model::DecoderConfig& c, std::uint64_t parameters);

}  // namespace docsift::family
