#include "docsift/text/chat_template.h"

#include <algorithm>

#include "docsift/error.h"

namespace docsift::text {
namespace {

constexpr std::string_view kImagePlaceholder = "<image>";

}  // namespace

ChatFormat chatml() {
  ChatFormat f;
  f.system_open = "<|im_start|>system\n";
  f.system_close = "<|im_end|>\n";
  f.user_open = "<|im_start|>user\n";
  f.user_close = "<|im_end|>\n<|im_start|>assistant\n";
  f.required_tokens = {"<|im_start|>"};
  f.stop_tokens = {"<|im_end|>"};
  f.optional_stop_tokens = {"<|endoftext|>"};
  return f;
}

std::string repeated_token(std::string_view open, std::string_view text, int times,
                           std::string_view close) {
  if (times < 1) {
    throw Error("an image needs at least one token (got " + std::to_string(times) + " × \"" +
                std::string(text) + "\")");
  }
  std::string out(open);
  out.reserve(open.size() + text.size() * static_cast<std::size_t>(times) + close.size());
  for (int i = 0; i < times; ++i) out += text;
  out += close;
  return out;
}

ChatTemplate::ChatTemplate(ChatFormat format, Tokenizer tokenizer,
                           std::optional<std::string> system_message)
    : format_(std::move(format)),
      tokenizer_(std::move(tokenizer)),
      system_message_(std::move(system_message)) {
  if (!format_.image_text) throw Error("chat format " + format_.name + " has no image expansion");
  for (const std::string& token : format_.required_tokens) require_token(token);
  image_token_id_ = require_token(format_.image_token);
  for (const std::string& token : format_.stop_tokens) stop_ids_.push_back(require_token(token));
  // Not the chat's end marker, but a model that emits one has finished.
  for (const std::string& token : format_.optional_stop_tokens) {
    if (const auto id = tokenizer_.token_to_id(token)) stop_ids_.push_back(*id);
  }
}

void ChatTemplate::add_stop_ids(std::span<const int32_t> ids, const std::string& source) {
  for (const int32_t id : ids) {
    bool known = id >= 0 && static_cast<std::size_t>(id) < tokenizer_.vocab_size();
    if (known) {
      // vocab_size() is the largest id + 1; an id below it may still be a gap no token fills.
      try {
        tokenizer_.id_to_token(id);
      } catch (const Error&) {
        known = false;
      }
    }
    if (!known) {
      throw FileError(source + ": eos_token_id " + std::to_string(id) + " is not a token of " +
                      tokenizer_.source() + " (" + std::to_string(tokenizer_.vocab_size()) +
                      " ids), so generation could never stop at it; are the two files from the "
                      "same checkpoint?");
    }
    if (std::find(stop_ids_.begin(), stop_ids_.end(), id) == stop_ids_.end())
      stop_ids_.push_back(id);
  }
}

int32_t ChatTemplate::require_token(std::string_view token) const {
  const auto id = tokenizer_.token_to_id(token);
  if (!id) {
    throw FileError(tokenizer_.source() + ": has no token \"" + std::string(token) +
                    "\", which the " + format_.name +
                    " chat format needs; is this the model's own tokenizer?");
  }
  return *id;
}

std::string ChatTemplate::render(std::string_view question, int image_units) const {
  // One image per prompt: at the "<image>" placeholder when there is one, else first, as both
  // references place it. A second placeholder would stay as literal text, so it is refused.
  std::size_t placeholders = 0;
  for (auto at = question.find(kImagePlaceholder); at != std::string_view::npos;
       at = question.find(kImagePlaceholder, at + kImagePlaceholder.size())) {
    ++placeholders;
  }
  if (placeholders > 1) {
    throw ConfigError("the prompt has " + std::to_string(placeholders) +
                      " \"<image>\" placeholders; it takes one image: keep one (the image goes "
                      "there) or none (it goes first)");
  }
  std::string user(question);
  if (placeholders == 0) user.insert(0, format_.image_first);
  user.replace(user.find(kImagePlaceholder), kImagePlaceholder.size(),
               format_.image_text(image_units));
  std::string prompt;
  if (format_.default_system) {
    prompt += format_.system_open + (system_message_ ? *system_message_ : *format_.default_system) +
              format_.system_close;
  }
  prompt += format_.user_open + user + format_.user_close;
  return prompt;
}

std::vector<int32_t> ChatTemplate::encode(std::string_view question, int image_units) const {
  return tokenizer_.encode(render(question, image_units), /*add_special_tokens=*/false);
}

}  // namespace docsift::text
