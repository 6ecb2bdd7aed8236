// Pre-tokenization: cutting normalized text into the pieces BPE sees. Supports what the
// byte-level tokenizers of our model families use: `Split` (regex or literal, behaviours
// Isolated and Removed) any number of times, then `ByteLevel` (optional prefix space, optional
// GPT-2 regex). Regexes run on PCRE2 in UTF + UCP mode with the JIT when available.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::text {

// A compiled PCRE2 pattern. Matching is thread-safe (match data is per call).
class Regex {
 public:
  // `literal`: match `pattern` as plain text. Throws docsift::FileError naming `label` when the
  // pattern does not compile.
  Regex(const std::string& pattern, bool literal, const std::string& label);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls `on_match(begin, end)` for each non-overlapping match in `text` (valid UTF-8), left
  // to right. An empty match advances by one character so the scan always terminates.
  void for_each_match(std::string_view text,
                      const std::function<void(std::size_t, std::size_t)>& on_match) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

enum class SplitBehavior { kIsolated, kRemoved };

struct SplitStep {
  std::shared_ptr<const Regex> regex;
  SplitBehavior behavior = SplitBehavior::kIsolated;
};

struct ByteLevelStep {
  bool add_prefix_space = false;
  std::shared_ptr<const Regex> gpt2_regex;  // null when use_regex is false
};

// Receives each final piece as raw bytes (the ByteLevel character mapping is left to BPE).
using PieceSink = std::function<void(std::string_view)>;

class PreTokenizer {
 public:
  PreTokenizer(std::vector<SplitStep> splits, ByteLevelStep byte_level);
  void run(std::string_view text, const PieceSink& sink) const;

 private:
  void run_from(std::size_t step, std::string_view text, const PieceSink& sink) const;
  std::vector<SplitStep> splits_;
  ByteLevelStep byte_level_;
};

// The pattern GPT-2's ByteLevel pre-tokenizer applies when `use_regex` is true.
const std::string& gpt2_pattern();

}  // namespace docsift::text
