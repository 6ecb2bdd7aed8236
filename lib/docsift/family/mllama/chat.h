// Llama 3.2 Vision Instruct's prompt (docs/models.md, "Chat templates"): BOS, the user header, one
// <|image|> token where the image goes, the question, the assistant header. No LibTorch.
#pragma once

#include "docsift/extract/schema.h"
#include "docsift/text/chat_template.h"

namespace docsift::family::mllama {

// max_new_tokens "auto": the reference system's budget for this family.
inline constexpr extract::TokenBudget kTokenBudget{600, 30};

text::ChatFormat chat_format();

}  // namespace docsift::family::mllama
