// Chat templates, written out per model family instead of interpreting the Jinja in
// tokenizer_config.json: docsift needs exactly one shape (one image, one question, generation
// prompt), and a fixed C++ string cannot drift with a template's whitespace rules. Each family
// declares its ChatFormat in its own folder (family/<name>/chat.h); this layer knows none of them.
// The strings follow docs/models.md, "Chat templates".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/text/tokenizer.h"

namespace docsift::text {

// One family's prompt shape, as data:
//   [system_open + system message + system_close]  (only when default_system is set)
//   user_open + the question with the image in it + user_close
// The image goes where the question says "<image>", else image_first goes in front of the
// question and then expands. image_text(units) is what replaces "<image>"; `units` is the
// family's own count (InternVL3: tiles; Qwen2.5-VL: merged patches; Llama 3.2 Vision: ignored).
struct ChatFormat {
  std::string name;  // for messages: "internvl", "llama32-vision", "qwen2.5-vl"
  std::optional<std::string> default_system;
  std::string system_open, system_close;
  std::string user_open, user_close;
  std::string image_first = "<image>";
  std::function<std::string(int units)> image_text;
  std::vector<std::string> required_tokens;       // checked against the tokenizer
  std::string image_token;                        // image_token_id()
  std::vector<std::string> stop_tokens;           // required
  std::vector<std::string> optional_stop_tokens;  // added when the tokenizer has them
};

// ChatML, which Qwen2-based models share (InternVL3, Qwen2.5-VL): the <|im_start|>role\n …
// <|im_end|>\n turns, the assistant's turn opened, stopping at <|im_end|> (and <|endoftext|>: not
// the chat's end marker, but a model that emits it has finished). The family adds its name, image
// and system message.
ChatFormat chatml();

// `text` repeated `times` times between `open` and `close` (InternVL3's and Qwen2.5-VL's image
// tokens). Throws docsift::Error for times < 1: an image always has at least one token.
std::string repeated_token(std::string_view open, std::string_view text, int times,
                           std::string_view close);

class ChatTemplate {
 public:
  // Resolves and checks the special tokens the format needs against `tokenizer`; a tokenizer
  // from another family fails here with the missing token named. `system_message` replaces the
  // format's default (ignored by formats without a system block).
  ChatTemplate(ChatFormat format, Tokenizer tokenizer,
               std::optional<std::string> system_message = std::nullopt);

  // The prompt text for one image and one question. The image goes where the question says
  // "<image>", or first when it does not say (as the references do); two placeholders are a
  // docsift::ConfigError. `image_units` as ChatFormat::image_text takes it.
  std::string render(std::string_view question, int image_units) const;

  // render() then encode without post-processing: every special token, BOS included, is in
  // the text exactly once.
  std::vector<int32_t> encode(std::string_view question, int image_units) const;

  // Generation stops at any of these.
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }
  // Adds the checkpoint's own end-of-sequence ids (its generation_config.json, which transformers'
  // generate() stops at) after the format's, each once. `source` names that file in messages: an
  // id the tokenizer does not define is a docsift::FileError, since no answer could end with it.
  void add_stop_ids(std::span<const int32_t> ids, const std::string& source);
  // The token whose embeddings are replaced by image features (InternVL3, Qwen2.5-VL) or that
  // marks the image position (Llama).
  int32_t image_token_id() const { return image_token_id_; }
  // The id of a token the format required (throws docsift::FileError when the tokenizer lacks it).
  int32_t token_id(std::string_view token) const { return require_token(token); }
  const ChatFormat& format() const { return format_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  int32_t require_token(std::string_view token) const;

  ChatFormat format_;
  Tokenizer tokenizer_;
  std::optional<std::string> system_message_;
  std::vector<int32_t> stop_ids_;
  int32_t image_token_id_ = -1;
};

}  // namespace docsift::text
