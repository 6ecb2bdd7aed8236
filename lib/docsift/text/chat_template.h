// Chat templates, written out per model family instead of interpreting the Jinja in
// tokenizer_config.json: docsift needs exactly one shape (one image, one question, generation
// prompt), and a fixed C++ string cannot drift with a template's whitespace rules. The strings
// follow docs/models.md, "Chat templates".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/text/tokenizer.h"

namespace docsift::text {

enum class ChatFormat {
  kInternVL,       // original InternVLChatModel checkpoints: MPT-style with a system block
  kInternVLHf,     // transformers-native -hf checkpoints: the same without the system block
  kLlama32Vision,  // Llama 3.2 Vision Instruct: BOS, user header, <|image|>, question
};

// "internvl", "internvl-hf", "llama32-vision"; throws docsift::ConfigError listing them.
ChatFormat parse_chat_format(std::string_view name);
std::string_view to_string(ChatFormat format);

// InternVL3's default system message (conversation.py, template "internvl2_5").
std::string_view internvl_default_system_message();

// "<img>" + "<IMG_CONTEXT>" × tokens_per_tile·num_tiles + "</img>".
std::string internvl_image_tokens(int num_tiles, int tokens_per_tile = 256);

class ChatTemplate {
 public:
  // Resolves and checks the special tokens the format needs against `tokenizer`; a tokenizer
  // from another family fails here with the missing token named. `system_message` replaces the
  // InternVL default (ignored by formats without a system block).
  ChatTemplate(ChatFormat format, Tokenizer tokenizer,
               std::optional<std::string> system_message = std::nullopt);

  // The prompt text for one image and one question. The image goes where the question says
  // "<image>", or first when it does not say (as model.chat() and Meta's reference do); two
  // placeholders are a docsift::ConfigError. InternVL: `num_tiles` image tiles (thumbnail
  // included), each 256 <IMG_CONTEXT> tokens, and "<image>\n" in front by default. Llama: one
  // <|image|> token.
  std::string render(std::string_view question, int num_tiles) const;

  // render() then encode without post-processing: every special token, BOS included, is in
  // the text exactly once.
  std::vector<int32_t> encode(std::string_view question, int num_tiles) const;

  // Generation stops at any of these.
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }
  // Adds the checkpoint's own end-of-sequence ids (its generation_config.json, which transformers'
  // generate() stops at) after the format's, each once. `source` names that file in messages: an
  // id the tokenizer does not define is a docsift::FileError, since no answer could end with it.
  void add_stop_ids(std::span<const int32_t> ids, const std::string& source);
  // The token whose embeddings are replaced by image features (InternVL) or that marks the
  // image position (Llama).
  int32_t image_token_id() const { return image_token_id_; }
  ChatFormat format() const { return format_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  int32_t require_token(std::string_view token) const;

  ChatFormat format_;
  Tokenizer tokenizer_;
  std::string system_message_;
  std::vector<int32_t> stop_ids_;
  int32_t image_token_id_ = -1;
};

}  // namespace docsift::text
