#include "docsift/model/kv_cache.h"

#include <ATen/ops/empty.h>

#include <string>

#include "docsift/error.h"

namespace docsift::model {

KVCache::KVCache(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t capacity, at::TensorOptions options)
    : capacity_(capacity) {
  for (int64_t i = 0; i < layers; ++i) {
    keys_.push_back(at::empty({1, kv_heads, capacity, head_dim}, options));
    values_.push_back(at::empty({1, kv_heads, capacity, head_dim}, options));
  }
}

std::size_t KVCache::bytes() const {
  std::size_t total = 0;
  for (const auto& t : keys_) total += t.nbytes();
  for (const auto& t : values_) total += t.nbytes();
  return total;
}

std::pair<at::Tensor, at::Tensor> KVCache::append(int64_t layer, const at::Tensor& k, const at::Tensor& v) {
  const int64_t t = k.size(2);
  if (length_ + t > capacity_) {
    throw Error("KV cache full: " + std::to_string(length_) + " + " + std::to_string(t) + " tokens exceed its " +
                std::to_string(capacity_) + "-token capacity");
  }
  keys_[layer].narrow(2, length_, t).copy_(k);
  values_[layer].narrow(2, length_, t).copy_(v);
  return {keys_[layer].narrow(2, 0, length_ + t), values_[layer].narrow(2, 0, length_ + t)};
}

void KVCache::commit(int64_t tokens) { length_ += tokens; }

}  // namespace docsift::model
