// Qwen3-VL's prompt, as the checkpoint's own chat template renders one image and one question
// with add_generation_prompt (docs/models.md, "Chat templates"): ChatML with no system message
// (unlike Qwen2.5-VL's template, it adds no default one), the image as
// <|vision_start|><|image_pad|>×N<|vision_end|> (one pad per merged 32×32 patch) directly before
// the question. No LibTorch.
#pragma once

#include "docsift/extract/schema.h"
#include "docsift/text/chat_template.h"

namespace docsift::family::qwen3vl {

// max_new_tokens "auto". The reference system has no Qwen3-VL budget; InternVL3's (the same
// Qwen2 tokenizer writes the answer) leaves room for every line.
inline constexpr extract::TokenBudget kTokenBudget{1000, 50};

text::ChatFormat chat_format();

}  // namespace docsift::family::qwen3vl
