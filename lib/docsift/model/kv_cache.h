// Key/value caches for a decoder, owned by one generation session (never by the model), so that
// dropping the session frees them. Storage is allocated once for the whole generation
// (prompt + max_new_tokens): no regrowth, no reallocation churn in the caching allocator.
//
// Two placements behind one interface:
//  - DeviceKVCache: every layer on the compute device (the standard tier).
//  - OffloadedKVCache: every layer in host memory (pinned when the device is CUDA) and two
//    device slots; while layer i computes, layer i+1 is copied into the other slot on a side
//    stream, and only the tokens a forward pass appends are copied back out. On the CPU the same
//    steps run synchronously, so the logic is exercised without a GPU.
// The decoder calls append(layer, ...) for layers 0..L-1 in order, then commit(T), per forward.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Event.h>
#include <c10/core/Stream.h>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace docsift::model {

struct KVCacheShape {
  int64_t layers = 0, kv_heads = 0, head_dim = 0;
  int64_t capacity = 0;  // tokens
  // Bytes of keys and values for `tokens` tokens of one layer.
  std::size_t layer_bytes(int64_t tokens, std::size_t element_size) const {
    return 2 * static_cast<std::size_t>(kv_heads * head_dim * tokens) * element_size;
  }
};

class KVCache {
 public:
  explicit KVCache(const KVCacheShape& shape) : shape_(shape) {}
  virtual ~KVCache() = default;
  KVCache(const KVCache&) = delete;
  KVCache& operator=(const KVCache&) = delete;

  int64_t length() const { return length_; }
  int64_t capacity() const { return shape_.capacity; }
  const KVCacheShape& shape() const { return shape_; }
  // Bytes held on the compute device and in host memory for this cache.
  virtual std::size_t device_bytes() const = 0;
  virtual std::size_t host_bytes() const = 0;

  // Writes k, v [1, kv_heads, T, head_dim] at positions [length, length + T) of `layer` and
  // returns device views of everything cached so far for that layer, [1, kv_heads, length + T,
  // hd], valid until the next append. The length advances once per forward pass, in commit().
  virtual std::pair<at::Tensor, at::Tensor> append(int64_t layer, const at::Tensor& k,
                                                   const at::Tensor& v) = 0;
  void commit(int64_t tokens) { length_ += tokens; }
  // Throws docsift::Error when `tokens` more would not fit.
  void check_room(int64_t tokens) const;

 protected:
  KVCacheShape shape_;
  int64_t length_ = 0;
};

class DeviceKVCache final : public KVCache {
 public:
  // Per layer [1, kv_heads, capacity, head_dim] for keys and values, with `options`.
  DeviceKVCache(const KVCacheShape& shape, at::TensorOptions options);
  std::size_t device_bytes() const override;
  std::size_t host_bytes() const override { return 0; }
  std::pair<at::Tensor, at::Tensor> append(int64_t layer, const at::Tensor& k,
                                           const at::Tensor& v) override;
  // `layer`'s whole storage, [1, kv_heads, capacity, hd] each, for a step that writes its own
  // position and masks the rest (Decoder::forward_fixed).
  std::pair<at::Tensor, at::Tensor> storage(int64_t layer) const {
    return {keys_[layer], values_[layer]};
  }

 private:
  std::vector<at::Tensor> keys_, values_;
};

class OffloadedKVCache final : public KVCache {
 public:
  OffloadedKVCache(const KVCacheShape& shape, at::TensorOptions options);
  ~OffloadedKVCache() override;  // waits for copies in flight: they write into our host buffers
  std::size_t device_bytes() const override;
  std::size_t host_bytes() const override;
  std::pair<at::Tensor, at::Tensor> append(int64_t layer, const at::Tensor& k,
                                           const at::Tensor& v) override;

 private:
  struct Slot {
    at::Tensor keys, values;          // [1, kv_heads, capacity, hd] on the device
    int64_t layer = -1;               // the layer it holds (or is being filled with)
    std::optional<c10::Event> ready;  // recorded on the side stream after the fill
  };
  // Queues the copy of `layer`'s first `tokens` tokens from host into `slot`.
  void prefetch(Slot& slot, int64_t layer, int64_t tokens);
  bool async() const { return side_.has_value(); }

  std::vector<at::Tensor> host_keys_, host_values_;  // per layer, [1, kv_heads, capacity, hd]
  std::array<Slot, 2> slots_;
  int next_slot_ = 0;
  std::optional<c10::Stream> side_;  // CUDA only; copies run synchronously elsewhere
};

enum class CachePlacement { kDevice, kOffloaded };

std::unique_ptr<KVCache> make_kv_cache(const KVCacheShape& shape, at::TensorOptions options,
                                       CachePlacement placement);

}  // namespace docsift::model
