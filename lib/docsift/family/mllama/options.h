// Llama 3.2 Vision's one option (model.cross_attention_rows): what text rows before <|image|> get
// from cross-attention layers. transformers (default; what published results on the Hub checkpoint
// used) keeps their gated attention output; Meta's reference zeroes it. Both zero their MLP branch.
#pragma once

#include <string_view>

#include "docsift/names.h"

namespace docsift::family::mllama {

enum class CrossAttentionRows { Transformers, Meta };

inline constexpr Names<CrossAttentionRows, 2> kCrossAttentionRowsNames{
    {{CrossAttentionRows::Transformers, "transformers"}, {CrossAttentionRows::Meta, "meta"}}};

constexpr std::string_view to_string(CrossAttentionRows v) { return name_of(kCrossAttentionRowsNames, v); }

}  // namespace docsift::family::mllama
