// Llama 3.2 Vision's one option (model.cross_attention_rows): what text rows before <|image|> get
// from cross-attention layers. transformers (default; what published results on the Hub checkpoint
// used) keeps their gated attention output; Meta's reference zeroes it. Both zero their MLP branch.
// No LibTorch: config/ lists it through family/settings.h.
#pragma once

#include <string>
#include <string_view>

#include "docsift/error.h"
#include "docsift/family/settings.h"
#include "docsift/names.h"

namespace docsift::family::mllama {

enum class CrossAttentionRows { Transformers, Meta };

inline constexpr Names<CrossAttentionRows, 2> kCrossAttentionRowsNames{
    {{CrossAttentionRows::Transformers, "transformers"}, {CrossAttentionRows::Meta, "meta"}}};

constexpr std::string_view to_string(CrossAttentionRows v) {
  return name_of(kCrossAttentionRowsNames, v);
}

inline FamilySetting cross_attention_rows_setting() {
  return {
      "model.cross_attention_rows",
      "Llama 3.2 Vision, prompt rows before <|image|>: transformers (keep their gated "
      "cross-attention output, as published Hub results) or meta (zero it, as Meta's reference)",
      {"transformers", "meta"}};
}

// The chosen rows from the config's settings (the default when unset).
inline CrossAttentionRows cross_attention_rows(const SettingValues& values) {
  const std::string_view chosen = setting_value(values, cross_attention_rows_setting());
  for (const auto& [v, n] : kCrossAttentionRowsNames) {
    if (n == chosen) return v;
  }
  throw ConfigError("model.cross_attention_rows: expected transformers or meta, got '" +
                    std::string(chosen) + "'");
}

}  // namespace docsift::family::mllama
