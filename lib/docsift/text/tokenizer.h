// Byte-level BPE tokenizer read from a Hugging Face `tokenizer.json`, or from the older
// `vocab.json` + `merges.txt` (+ `added_tokens.json`, `tokenizer_config.json`) layout that
// InternVL3's original checkpoints ship. Produces the ids the reference `tokenizers` library
// produces; anything in the file we do not implement is an error naming it, never an
// approximation.
//
//   text ──► added tokens (raw) ──► normalizer ──► added tokens (normalized) ──► Split… ──►
//   ByteLevel ──► BPE ──► ids ──► post-processor (only with add_special_tokens)
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/text/added_tokens.h"

namespace docsift::text {

class Tokenizer {
 public:
  // A `tokenizer.json` file, or a model folder holding `tokenizer.json` or the vocab.json +
  // merges.txt layout. Throws docsift::FileError naming the file and the problem.
  static Tokenizer load(const std::filesystem::path& file_or_folder);
  static Tokenizer from_tokenizer_json(const std::filesystem::path& file);
  // `text` is the content of a tokenizer.json; `label` names it in errors.
  static Tokenizer from_tokenizer_json_text(std::string_view text, const std::string& label);
  static Tokenizer from_vocab_merges(const std::filesystem::path& folder);

  // Ids for `text` (which must be valid UTF-8; invalid input throws docsift::Error with the
  // byte offset). Special tokens written in the text are recognised. `add_special_tokens`
  // applies the file's post-processor (e.g. a BOS template); docsift's chat templates write
  // every special token themselves and call this with false.
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = false) const;

  // Text for `ids`; bytes that do not form valid UTF-8 become U+FFFD. Unknown ids throw.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  // The vocabulary string of `id` (byte-level spelling for model tokens); throws for unknown ids.
  const std::string& id_to_token(int32_t id) const;
  // Raw bytes that `id` stands for (decoder applied to the single token).
  std::string token_bytes(int32_t id) const;
  bool is_special(int32_t id) const;
  // Largest id + 1 (model and added tokens).
  std::size_t vocab_size() const;
  const std::vector<AddedToken>& added_tokens() const;
  // Where it was loaded from, for messages.
  const std::string& source() const;

  // Opaque; defined in tokenizer_impl.h for the loaders.
  struct Impl;

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable after loading; copies share it
  friend class StreamDecoder;
  friend struct TokenizerBuilder;
};

// Turns ids into text as they are generated. Never emits a partial UTF-8 sequence: bytes of an
// incomplete character are held until the token that completes it arrives.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens = true);
  // The text that became complete with this token (possibly empty).
  std::string push(int32_t id);
  // Flushes held bytes at the end of generation (an unfinished character becomes U+FFFD).
  std::string finish();

 private:
  Tokenizer tokenizer_;
  bool skip_special_;
  std::string pending_;  // bytes of an incomplete character
};

}  // namespace docsift::text
