// Internal: the parts a loaded Tokenizer is made of. Shared by tokenizer.cpp (encode/decode)
// and tokenizer_files.cpp (reading the two file layouts); not part of the public interface.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "docsift/text/added_tokens.h"
#include "docsift/text/bpe.h"
#include "docsift/text/pre_tokenizer.h"
#include "docsift/text/tokenizer.h"

namespace docsift::text {

struct Normalizer {
  bool nfc = false;  // the only normalization byte-level vocabularies we support ask for
};

std::string normalize_text(const Normalizer& normalizer, std::string_view text);

struct Tokenizer::Impl {
  std::string source;
  Normalizer normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<BpeModel> bpe;
  std::vector<AddedToken> added;
  // Post-processor template for a single sequence: ids before and after it.
  std::vector<int32_t> template_prefix, template_suffix;

  // Derived by finish_setup().
  std::unordered_map<int32_t, std::size_t> added_by_id;
  std::unordered_map<std::string, int32_t> added_by_content;
  std::unordered_set<std::string> special_contents;
  AddedTokenMatcher raw_matcher, normalized_matcher;
  int64_t max_id = -1;

  void finish_setup();
  const std::string* find_token(int32_t id) const;
};

}  // namespace docsift::text
