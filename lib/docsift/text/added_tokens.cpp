#include "docsift/text/added_tokens.h"

#include "docsift/text/utf8.h"

namespace docsift::text {
namespace {

// The last code point before `end` (text[0, end) is valid UTF-8 and non-empty).
char32_t code_point_before(std::string_view text, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return next_code_point(text, start);
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<const AddedToken*> tokens,
                                     std::vector<std::string> patterns)
    : tokens_(std::move(tokens)) {
  terminal_.push_back(-1);
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const std::string& pattern = patterns[i];
    if (pattern.empty()) continue;
    uint32_t node = 0;
    for (const char ch : pattern) {
      const auto byte = static_cast<unsigned char>(ch);
      const uint32_t key = node << 8 | byte;
      auto it = edges_.find(key);
      if (it == edges_.end()) {
        it = edges_.emplace(key, static_cast<uint32_t>(terminal_.size())).first;
        terminal_.push_back(-1);
      }
      node = it->second;
    }
    // Two tokens with the same text: the first one listed wins.
    if (terminal_[node] < 0) terminal_[node] = static_cast<int>(i);
    first_byte_[static_cast<unsigned char>(pattern[0])] = true;
  }
}

int AddedTokenMatcher::longest_match_at(std::string_view text, std::size_t pos,
                                        std::size_t& length) const {
  int best = -1;
  uint32_t node = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const auto it = edges_.find(node << 8 | static_cast<unsigned char>(text[i]));
    if (it == edges_.end()) break;
    node = it->second;
    if (terminal_[node] >= 0) {
      best = terminal_[node];
      length = i + 1 - pos;
    }
  }
  return best;
}

void AddedTokenMatcher::split(std::string_view text,
                              const std::function<void(std::string_view)>& on_text,
                              const std::function<void(const AddedToken&)>& on_token) const {
  std::size_t emitted = 0;  // text before this offset has been handed out
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (!first_byte_[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    std::size_t length = 0;
    const int index = longest_match_at(text, pos, length);
    if (index < 0) {
      ++pos;
      continue;
    }
    const AddedToken& token = *tokens_[index];
    std::size_t start = pos, stop = pos + length;
    // The scan resumes after the match even when the match is rejected below, as the
    // reference's non-overlapping iterator does.
    pos = stop;
    if (token.single_word) {
      const bool word_before = start > 0 && is_word_char(code_point_before(text, start));
      std::size_t after = stop;
      const bool word_after = stop < text.size() && is_word_char(next_code_point(text, after));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      std::size_t new_start = start;
      while (new_start > emitted && is_unicode_whitespace(code_point_before(text, new_start))) {
        std::size_t back = new_start - 1;
        while ((static_cast<unsigned char>(text[back]) & 0xC0) == 0x80) --back;
        new_start = back;
      }
      start = new_start;
    }
    if (token.rstrip) {
      while (stop < text.size()) {
        std::size_t next = stop;
        if (!is_unicode_whitespace(next_code_point(text, next))) break;
        stop = next;
      }
      pos = std::max(pos, stop);
    }
    if (start > emitted) on_text(text.substr(emitted, start - emitted));
    on_token(token);
    emitted = stop;
  }
  if (emitted < text.size()) on_text(text.substr(emitted));
}

}  // namespace docsift::text
