// Key/value cache for a decoder, owned by one generation session (never by the model), so that
// dropping the session frees it. Storage is allocated once for the whole generation
// (prompt + max_new_tokens): no regrowth, no reallocation churn in the caching allocator.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace docsift::model {

class KVCache {
 public:
  // Per layer [1, kv_heads, capacity, head_dim] for keys and values.
  KVCache(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t capacity, at::TensorOptions options);

  int64_t length() const { return length_; }
  int64_t capacity() const { return capacity_; }
  std::size_t bytes() const;

  // Writes k, v [1, kv_heads, T, head_dim] at positions [length, length + T) of `layer` and
  // returns views of everything cached so far for that layer, [1, kv_heads, length + T, hd].
  // The length advances once per forward pass, through commit().
  std::pair<at::Tensor, at::Tensor> append(int64_t layer, const at::Tensor& k, const at::Tensor& v);
  void commit(int64_t tokens);

 private:
  std::vector<at::Tensor> keys_, values_;
  int64_t capacity_ = 0;
  int64_t length_ = 0;
};

}  // namespace docsift::model
