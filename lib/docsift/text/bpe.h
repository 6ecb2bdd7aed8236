// Byte-level BPE model: vocabulary, merge ranks, and the merge loop for one pre-token.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace docsift::text {

struct BpeOptions {
  // Llama 3: a pre-token that is itself a vocabulary entry is emitted whole, without merging.
  bool ignore_merges = false;
  // Token for bytes whose character is missing from the vocabulary (byte-level vocabularies
  // normally contain all 256); nullopt drops such bytes, as the reference does.
  std::optional<std::string> unk_token;
  bool fuse_unk = false;  // consecutive unknown bytes become one unk token
};

class BpeModel {
 public:
  // `vocab`: token string → id. `merges`: pairs in rank order (first = merged first).
  // `label` prefixes errors (the file the data came from). Throws docsift::FileError when a
  // merge names a token missing from the vocabulary, or ids are negative or repeated.
  BpeModel(std::vector<std::pair<std::string, int32_t>> vocab,
           const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options,
           const std::string& label);

  // Appends the ids of one pre-token given as raw bytes (the byte-level spelling is implied).
  void tokenize(std::string_view raw_bytes, std::vector<int32_t>& out) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  // nullptr for ids that the model does not define.
  const std::string* id_to_token(int32_t id) const;
  std::size_t size() const { return vocab_.size(); }
  std::size_t merge_count() const { return merges_.size(); }
  // One past the largest id.
  std::size_t id_limit() const { return id_to_token_.size(); }

 private:
  struct Merge {
    int32_t rank;
    int32_t new_id;
  };
  static uint64_t pair_key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  const Merge* find_merge(int32_t a, int32_t b) const;
  void merge_word(std::string_view raw_bytes, std::vector<int32_t>& out) const;

  std::vector<std::string> id_to_token_;  // index = id; empty string marks a hole
  std::vector<bool> defined_;
  std::unordered_map<std::string_view, int32_t> vocab_;  // views into id_to_token_
  std::unordered_map<uint64_t, Merge> merges_;
  std::array<int32_t, 256> byte_ids_{};  // id of each byte's single-character token, or -1
  BpeOptions options_;
  std::optional<int32_t> unk_id_;

  // Pre-token → ids. Documents repeat words, and a cache hit skips the merge loop. Guarded by
  // a mutex taken with try_lock, so concurrent encoders never wait: they just skip the cache.
  static constexpr std::size_t kCacheCapacity = 1 << 16;
  static constexpr std::size_t kMaxCachedWordBytes = 64;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace docsift::text
