#include "docsift/family/mllama/chat.h"

namespace docsift::family::mllama {

text::ChatFormat chat_format() {
  text::ChatFormat f;
  f.name = "llama32-vision";
  f.user_open = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n";
  f.user_close = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
  f.image_first = "<image>";
  // One token however many tiles: the image reaches the decoder through cross-attention.
  f.image_text = [](int) { return std::string("<|image|>"); };
  f.required_tokens = {"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>"};
  f.image_token = "<|image|>";
  f.stop_tokens = {"<|eot_id|>"};
  f.optional_stop_tokens = {"<|end_of_text|>", "<|eom_id|>"};
  return f;
}

}  // namespace docsift::family::mllama
