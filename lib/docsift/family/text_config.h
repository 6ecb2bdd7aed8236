// The language model's config.json section as every family reads it: model/decoder_config.h's
// reader, with the rule for what the section says only through the architecture it names.
// Header-only and free of LibTorch, like the config readers that use it (the fuzz build compiles
// those alone).
#pragma once

#include <nlohmann/json.hpp>

#include "docsift/json_fields.h"
#include "docsift/model/decoder_config.h"

namespace docsift::family {

// Whether the text config names an architecture whose layers norm every query and key head
// before RoPE (model_type "qwen3", or architectures[0] "Qwen3ForCausalLM"): no key says so.
inline bool norms_query_key_heads(const JsonFields& text) {
  const nlohmann::json* archs = text.find("architectures");
  const bool arch =
      archs != nullptr && archs->is_array() && !archs->empty() && (*archs)[0] == "Qwen3ForCausalLM";
  return text.string("model_type", "") == "qwen3" || arch;
}

// model::parse_decoder_config with norms_query_key_heads as its qk_norm rule. `attention_bias` and
// `tie_embeddings` are the family's defaults when the config does not say.
inline model::DecoderConfig parse_text_config(const JsonFields& text, bool attention_bias,
                                              bool tie_embeddings) {
  return model::parse_decoder_config(text, attention_bias, tie_embeddings, &norms_query_key_heads);
}

}  // namespace docsift::family
