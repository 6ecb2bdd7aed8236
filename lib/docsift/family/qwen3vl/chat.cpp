#include "docsift/family/qwen3vl/chat.h"

namespace docsift::family::qwen3vl {

text::ChatFormat chat_format() {
  text::ChatFormat f = text::chatml();
  f.name = "qwen3-vl";
  // The template writes the vision block and the text with nothing between.
  f.image_first = "<image>";
  f.image_text = [](int merged_patches) {
    return text::repeated_token("<|vision_start|>", "<|image_pad|>", merged_patches,
                                "<|vision_end|>");
  };
  f.required_tokens.insert(f.required_tokens.end(), {"<|vision_start|>", "<|vision_end|>"});
  f.image_token = "<|image_pad|>";
  return f;
}

}  // namespace docsift::family::qwen3vl
