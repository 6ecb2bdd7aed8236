#include "docsift/family/internvl/chat.h"

namespace docsift::family::internvl {

std::string_view default_system_message() {
  return "你是书生·万象，英文名是InternVL，是由上海人工智能实验室、清华大学及多家合作单位联合开发的"
         "多模态大语言模型。";
}

text::ChatFormat chat_format(bool original_layout, int64_t tokens_per_tile) {
  text::ChatFormat f = text::chatml();
  f.name = original_layout ? "internvl" : "internvl-hf";
  if (original_layout) f.default_system = std::string(default_system_message());
  f.image_first = "<image>\n";
  const int per_tile = static_cast<int>(tokens_per_tile);
  f.image_text = [per_tile](int tiles) {
    return text::repeated_token("<img>", "<IMG_CONTEXT>", per_tile * tiles, "</img>");
  };
  f.required_tokens.insert(f.required_tokens.end(), {"<img>", "</img>"});
  f.image_token = "<IMG_CONTEXT>";
  return f;
}

}  // namespace docsift::family::internvl
