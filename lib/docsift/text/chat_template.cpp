#include "docsift/text/chat_template.h"

#include <algorithm>

#include "docsift/error.h"

namespace docsift::text {
namespace {

constexpr std::string_view kImagePlaceholder = "<image>";
constexpr std::string_view kInternVLSystem =
    "你是书生·万象，英文名是InternVL，是由上海人工智能实验室、清华大学及多家合作单位联合开发的多模态大语言模型。";

}  // namespace

ChatFormat parse_chat_format(std::string_view name) {
  if (name == "internvl") return ChatFormat::kInternVL;
  if (name == "internvl-hf") return ChatFormat::kInternVLHf;
  if (name == "llama32-vision") return ChatFormat::kLlama32Vision;
  throw ConfigError("unknown chat format \"" + std::string(name) +
                    "\" (known: internvl, internvl-hf, llama32-vision)");
}

std::string_view to_string(ChatFormat format) {
  switch (format) {
    case ChatFormat::kInternVL: return "internvl";
    case ChatFormat::kInternVLHf: return "internvl-hf";
    case ChatFormat::kLlama32Vision: return "llama32-vision";
  }
  return "?";
}

std::string_view internvl_default_system_message() { return kInternVLSystem; }

std::string internvl_image_tokens(int num_tiles, int tokens_per_tile) {
  if (num_tiles < 1 || tokens_per_tile < 1) {
    throw Error("InternVL image needs at least one tile of at least one token (got " +
                std::to_string(num_tiles) + " tiles × " + std::to_string(tokens_per_tile) + ")");
  }
  constexpr std::string_view kContext = "<IMG_CONTEXT>";
  std::string text = "<img>";
  text.reserve(text.size() + kContext.size() * num_tiles * tokens_per_tile + 6);
  for (int i = 0; i < num_tiles * tokens_per_tile; ++i) text += kContext;
  text += "</img>";
  return text;
}

ChatTemplate::ChatTemplate(ChatFormat format, Tokenizer tokenizer, std::optional<std::string> system_message)
    : format_(format),
      tokenizer_(std::move(tokenizer)),
      system_message_(system_message ? *system_message : std::string(kInternVLSystem)) {
  switch (format_) {
    case ChatFormat::kInternVL:
    case ChatFormat::kInternVLHf:
      for (const char* token : {"<|im_start|>", "<img>", "</img>"}) require_token(token);
      image_token_id_ = require_token("<IMG_CONTEXT>");
      stop_ids_.push_back(require_token("<|im_end|>"));
      // Not the chat's end marker, but a model that emits it has finished.
      if (const auto eos = tokenizer_.token_to_id("<|endoftext|>")) stop_ids_.push_back(*eos);
      break;
    case ChatFormat::kLlama32Vision:
      for (const char* token : {"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>"}) {
        require_token(token);
      }
      image_token_id_ = require_token("<|image|>");
      stop_ids_.push_back(require_token("<|eot_id|>"));
      for (const char* token : {"<|end_of_text|>", "<|eom_id|>"}) {
        if (const auto id = tokenizer_.token_to_id(token)) stop_ids_.push_back(*id);
      }
      break;
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
      throw FileError(source + ": eos_token_id " + std::to_string(id) + " is not a token of " + tokenizer_.source() +
                      " (" + std::to_string(tokenizer_.vocab_size()) +
                      " ids), so generation could never stop at it; are the two files from the same checkpoint?");
    }
    if (std::find(stop_ids_.begin(), stop_ids_.end(), id) == stop_ids_.end()) stop_ids_.push_back(id);
  }
}

int32_t ChatTemplate::require_token(std::string_view token) const {
  const auto id = tokenizer_.token_to_id(token);
  if (!id) {
    throw FileError(tokenizer_.source() + ": has no token \"" + std::string(token) + "\", which the " +
                    std::string(to_string(format_)) + " chat format needs; is this the model's own tokenizer?");
  }
  return *id;
}

std::string ChatTemplate::render(std::string_view question, int num_tiles) const {
  // One image per prompt: at the "<image>" placeholder when there is one, else first, as both
  // references place it. A second placeholder would stay as literal text, so it is refused.
  std::size_t placeholders = 0;
  for (auto at = question.find(kImagePlaceholder); at != std::string_view::npos;
       at = question.find(kImagePlaceholder, at + kImagePlaceholder.size())) {
    ++placeholders;
  }
  if (placeholders > 1) {
    throw ConfigError("the prompt has " + std::to_string(placeholders) +
                      " \"<image>\" placeholders; it takes one image: keep one (the image goes there) or none (it "
                      "goes first)");
  }
  std::string prompt;
  switch (format_) {
    case ChatFormat::kInternVL:
    case ChatFormat::kInternVLHf: {
      std::string user(question);
      if (placeholders == 0) user.insert(0, std::string(kImagePlaceholder) + "\n");
      user.replace(user.find(kImagePlaceholder), kImagePlaceholder.size(), internvl_image_tokens(num_tiles));
      if (format_ == ChatFormat::kInternVL) {
        prompt += "<|im_start|>system\n" + system_message_ + "<|im_end|>\n";
      }
      prompt += "<|im_start|>user\n" + user + "<|im_end|>\n<|im_start|>assistant\n";
      break;
    }
    case ChatFormat::kLlama32Vision: {
      std::string user(question);
      if (placeholders == 0) user.insert(0, kImagePlaceholder);
      user.replace(user.find(kImagePlaceholder), kImagePlaceholder.size(), "<|image|>");
      prompt = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + user;
      prompt += "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
      break;
    }
  }
  return prompt;
}

std::vector<int32_t> ChatTemplate::encode(std::string_view question, int num_tiles) const {
  return tokenizer_.encode(render(question, num_tiles), /*add_special_tokens=*/false);
}

}  // namespace docsift::text
