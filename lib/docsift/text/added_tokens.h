// Added tokens (special and user-added) and the matcher that finds them in text before the
// normalizer and BPE see it. Matching is leftmost-longest, and the flags behave as in the
// reference AddedVocabulary: `single_word` rejects matches touching a word character,
// `lstrip`/`rstrip` absorb neighbouring whitespace into the token.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace docsift::text {

struct AddedToken {
  int32_t id = -1;
  std::string content;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;  // matched against normalized text instead of the raw input
};

class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  // `patterns[i]` is the text to find for `tokens[i]` (its content, or its normalized form).
  AddedTokenMatcher(std::vector<const AddedToken*> tokens, std::vector<std::string> patterns);

  bool empty() const { return tokens_.empty(); }

  // Splits `text` into segments in order: `on_text(piece)` for text between tokens (never
  // empty) and `on_token(token)` for each token found.
  void split(std::string_view text, const std::function<void(std::string_view)>& on_text,
             const std::function<void(const AddedToken&)>& on_token) const;

 private:
  // Longest pattern starting at `pos`, as an index into tokens_, or -1.
  int longest_match_at(std::string_view text, std::size_t pos, std::size_t& length) const;

  std::vector<const AddedToken*> tokens_;
  // Byte trie: node 0 is the root; edges keyed by (node << 8 | byte).
  std::unordered_map<uint32_t, uint32_t> edges_;
  std::vector<int> terminal_;  // per node: token index ending there, or -1
  std::array<bool, 256> first_byte_{};
};

}  // namespace docsift::text
