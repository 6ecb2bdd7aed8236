#include "docsift/text/tokenizer.h"

#include <utf8proc.h>

#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#include "docsift/error.h"
#include "docsift/text/byte_level.h"
#include "docsift/text/tokenizer_impl.h"
#include "docsift/text/utf8.h"

namespace docsift::text {

std::string normalize_text(const Normalizer& normalizer, std::string_view text) {
  if (!normalizer.nfc) return std::string(text);
  // NFC leaves ASCII unchanged; most document text is ASCII, so skip utf8proc for it.
  bool ascii = true;
  for (const char ch : text) {
    if (static_cast<unsigned char>(ch) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return std::string(text);
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) {
    throw Error(std::string("NFC normalization failed: ") + utf8proc_errmsg(n));
  }
  std::string result(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  std::free(mapped);
  return result;
}

void Tokenizer::Impl::finish_setup() {
  for (std::size_t i = 0; i < added.size(); ++i) {
    added_by_id.emplace(added[i].id, i);
    added_by_content.emplace(added[i].content, added[i].id);
    if (added[i].special) special_contents.insert(added[i].content);
    max_id = std::max<int64_t>(max_id, added[i].id);
  }
  std::vector<const AddedToken*> raw_tokens, normalized_tokens;
  std::vector<std::string> raw_patterns, normalized_patterns;
  for (const AddedToken& token : added) {
    if (token.normalized) {
      normalized_tokens.push_back(&token);
      normalized_patterns.push_back(normalize_text(normalizer, token.content));
    } else {
      raw_tokens.push_back(&token);
      raw_patterns.push_back(token.content);
    }
  }
  raw_matcher = AddedTokenMatcher(std::move(raw_tokens), std::move(raw_patterns));
  normalized_matcher =
      AddedTokenMatcher(std::move(normalized_tokens), std::move(normalized_patterns));
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const Impl& impl = *impl_;
  if (const std::size_t bad = find_invalid_utf8(text); bad != kNoError) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw Error("input text is not valid UTF-8: byte " + std::string(hex) + " at offset " +
                std::to_string(bad) +
                " does not start a well-formed character; convert the text to UTF-8");
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 8);
  if (add_special_tokens)
    ids.insert(ids.end(), impl.template_prefix.begin(), impl.template_prefix.end());

  const auto push_token = [&](const AddedToken& token) { ids.push_back(token.id); };
  const auto to_model = [&](std::string_view piece) {
    impl.pre_tokenizer->run(piece, [&](std::string_view word) { impl.bpe->tokenize(word, ids); });
  };
  const auto normalized_stage = [&](std::string_view raw_piece) {
    // Only a normalizer needs a copy of the text; without one the raw piece is used in place.
    std::string normalized;
    if (impl.normalizer.nfc) normalized = normalize_text(impl.normalizer, raw_piece);
    const std::string_view piece = impl.normalizer.nfc ? std::string_view(normalized) : raw_piece;
    if (impl.normalized_matcher.empty()) {
      to_model(piece);
    } else {
      impl.normalized_matcher.split(piece, to_model, push_token);
    }
  };
  if (impl.raw_matcher.empty()) {
    normalized_stage(text);
  } else {
    impl.raw_matcher.split(text, normalized_stage, push_token);
  }

  if (add_special_tokens)
    ids.insert(ids.end(), impl.template_suffix.begin(), impl.template_suffix.end());
  return ids;
}

const std::string* Tokenizer::Impl::find_token(int32_t id) const {
  if (const auto it = added_by_id.find(id); it != added_by_id.end())
    return &added[it->second].content;
  return bpe->id_to_token(id);
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  const Impl& impl = *impl_;
  std::string bytes;
  for (const int32_t id : ids) {
    // Ids the vocabulary does not define are skipped, as the reference does: models pad their
    // embedding tables past the vocabulary and could in principle produce one.
    const std::string* token = impl.find_token(id);
    if (token == nullptr) continue;
    if (skip_special_tokens && impl.special_contents.count(*token) != 0) continue;
    bytes += byte_level_to_bytes(*token);
  }
  std::string text;
  text.reserve(bytes.size());
  append_utf8_lossy(text, bytes);
  return text;
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const auto it = impl_->added_by_content.find(std::string(token));
      it != impl_->added_by_content.end()) {
    return it->second;
  }
  return impl_->bpe->token_to_id(token);
}

const std::string& Tokenizer::id_to_token(int32_t id) const {
  const std::string* token = impl_->find_token(id);
  if (token == nullptr) {
    throw Error(impl_->source + ": token id " + std::to_string(id) + " is not in the vocabulary (" +
                std::to_string(vocab_size()) + " ids)");
  }
  return *token;
}

std::string Tokenizer::token_bytes(int32_t id) const {
  return byte_level_to_bytes(id_to_token(id));
}

bool Tokenizer::is_special(int32_t id) const {
  const std::string* token = impl_->find_token(id);
  return token != nullptr && impl_->special_contents.count(*token) != 0;
}

std::size_t Tokenizer::vocab_size() const { return static_cast<std::size_t>(impl_->max_id + 1); }

const std::vector<AddedToken>& Tokenizer::added_tokens() const { return impl_->added; }

const std::string& Tokenizer::source() const { return impl_->source; }

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(tokenizer), skip_special_(skip_special_tokens) {}

std::string StreamDecoder::push(int32_t id) {
  const std::string* token = tokenizer_.impl_->find_token(id);
  if (token == nullptr) return {};
  if (skip_special_ && tokenizer_.impl_->special_contents.count(*token) != 0) return {};
  pending_ += byte_level_to_bytes(*token);
  const std::size_t hold = incomplete_utf8_tail(pending_);
  std::string text;
  append_utf8_lossy(text, std::string_view(pending_).substr(0, pending_.size() - hold));
  pending_.erase(0, pending_.size() - hold);
  return text;
}

std::string StreamDecoder::finish() {
  std::string text;
  append_utf8_lossy(text, pending_);
  pending_.clear();
  return text;
}

}  // namespace docsift::text
