// InternVL3's prompt (docs/models.md, "Chat templates"): ChatML with the image as
// <img><IMG_CONTEXT>×256·tiles</img> and a newline before the question. No LibTorch.
#pragma once

#include <cstdint>
#include <string_view>

#include "docsift/extract/schema.h"
#include "docsift/text/chat_template.h"

namespace docsift::family::internvl {

// max_new_tokens "auto": the reference system's budget for this family.
inline constexpr extract::TokenBudget kTokenBudget{1000, 50};

// InternVL3's default system message (conversation.py, template "internvl2_5").
std::string_view default_system_message();

// The original InternVLChatModel layout ("internvl": with the system block its chat() writes) or
// the transformers-native -hf one ("internvl-hf": the processor's template, no system block).
text::ChatFormat chat_format(bool original_layout, int64_t tokens_per_tile = 256);

}  // namespace docsift::family::internvl
