#include "docsift/model/kv_cache.h"

#include <ATen/ops/empty.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <string>

#include "docsift/error.h"

namespace docsift::model {
namespace {

std::size_t total_bytes(const std::vector<at::Tensor>& tensors) {
  std::size_t total = 0;
  for (const auto& t : tensors) total += t.nbytes();
  return total;
}

at::Tensor layer_buffer(const KVCacheShape& s, at::TensorOptions options) {
  return at::empty({1, s.kv_heads, s.capacity, s.head_dim}, options);
}

// The stream the current thread queues work on for `device` (its "compute" stream).
c10::Stream current_stream(at::Device device) {
  return c10::impl::VirtualGuardImpl(device.type()).getStream(device);
}

}  // namespace

void KVCache::check_room(int64_t tokens) const {
  if (length_ + tokens > shape_.capacity) {
    throw Error("KV cache full: " + std::to_string(length_) + " + " + std::to_string(tokens) +
                " tokens exceed its " + std::to_string(shape_.capacity) + "-token capacity");
  }
}

DeviceKVCache::DeviceKVCache(const KVCacheShape& shape, at::TensorOptions options)
    : KVCache(shape) {
  for (int64_t i = 0; i < shape.layers; ++i) {
    keys_.push_back(layer_buffer(shape, options));
    values_.push_back(layer_buffer(shape, options));
  }
}

std::size_t DeviceKVCache::device_bytes() const {
  return total_bytes(keys_) + total_bytes(values_);
}

std::pair<at::Tensor, at::Tensor> DeviceKVCache::append(int64_t layer, const at::Tensor& k,
                                                        const at::Tensor& v) {
  const int64_t t = k.size(2);
  check_room(t);
  keys_[layer].narrow(2, length_, t).copy_(k);
  values_[layer].narrow(2, length_, t).copy_(v);
  return {keys_[layer].narrow(2, 0, length_ + t), values_[layer].narrow(2, 0, length_ + t)};
}

OffloadedKVCache::OffloadedKVCache(const KVCacheShape& shape, at::TensorOptions options)
    : KVCache(shape) {
  const at::Device device = options.device();
  const bool cuda = device.is_cuda();
  // Pinned pages let the copies run asynchronously and at full PCIe bandwidth.
  const at::TensorOptions host = options.device(at::kCPU).pinned_memory(cuda);
  for (int64_t i = 0; i < shape.layers; ++i) {
    host_keys_.push_back(layer_buffer(shape, host));
    host_values_.push_back(layer_buffer(shape, host));
  }
  for (Slot& slot : slots_) {
    slot.keys = layer_buffer(shape, options);
    slot.values = layer_buffer(shape, options);
  }
  if (cuda) side_ = c10::impl::VirtualGuardImpl(device.type()).getStreamFromGlobalPool(device);
}

OffloadedKVCache::~OffloadedKVCache() {
  if (side_) side_->synchronize();
}

std::size_t OffloadedKVCache::device_bytes() const {
  std::size_t total = 0;
  for (const Slot& slot : slots_) total += slot.keys.nbytes() + slot.values.nbytes();
  return total;
}

std::size_t OffloadedKVCache::host_bytes() const {
  return total_bytes(host_keys_) + total_bytes(host_values_);
}

void OffloadedKVCache::prefetch(Slot& slot, int64_t layer, int64_t tokens) {
  slot.layer = layer;
  slot.ready.reset();
  if (tokens == 0) return;
  if (!async()) {
    slot.keys.narrow(2, 0, tokens).copy_(host_keys_[layer].narrow(2, 0, tokens));
    slot.values.narrow(2, 0, tokens).copy_(host_values_[layer].narrow(2, 0, tokens));
    return;
  }
  const c10::StreamGuard on_side(*side_);
  slot.keys.narrow(2, 0, tokens)
      .copy_(host_keys_[layer].narrow(2, 0, tokens), /*non_blocking=*/true);
  slot.values.narrow(2, 0, tokens)
      .copy_(host_values_[layer].narrow(2, 0, tokens), /*non_blocking=*/true);
  slot.ready.emplace(side_->device_type());
  slot.ready->record(*side_);
}

std::pair<at::Tensor, at::Tensor> OffloadedKVCache::append(int64_t layer, const at::Tensor& k,
                                                           const at::Tensor& v) {
  const int64_t t = k.size(2);
  check_room(t);
  Slot& slot = slots_[next_slot_];
  Slot& other = slots_[1 - next_slot_];
  // Normally the previous append already queued this layer's fetch; the first layer of a cache,
  // or a caller that skipped layers, fetches it now.
  if (slot.layer != layer) prefetch(slot, layer, length_);
  std::optional<c10::Stream> compute;
  if (async()) {
    compute = current_stream(k.device());
    if (slot.ready) slot.ready->block(*compute);  // the fetch must land before we write or read
  }
  slot.keys.narrow(2, length_, t).copy_(k);
  slot.values.narrow(2, length_, t).copy_(v);

  // Copy out only the new tokens, then fetch the next layer into the other slot. On the side
  // stream both wait for everything queued so far on the compute stream: the write above, and the
  // previous layer's attention, which was the last reader of the other slot.
  const int64_t next = (layer + 1) % shape_.layers;
  // Past the last layer the next forward starts, and by then this pass's tokens are committed.
  const int64_t next_tokens = next == 0 ? length_ + t : length_;
  if (async()) {
    c10::Event computed(compute->device_type());
    computed.record(*compute);
    computed.block(*side_);
    const c10::StreamGuard on_side(*side_);
    host_keys_[layer]
        .narrow(2, length_, t)
        .copy_(slot.keys.narrow(2, length_, t), /*non_blocking=*/true);
    host_values_[layer]
        .narrow(2, length_, t)
        .copy_(slot.values.narrow(2, length_, t), /*non_blocking=*/true);
  } else {
    host_keys_[layer].narrow(2, length_, t).copy_(slot.keys.narrow(2, length_, t));
    host_values_[layer].narrow(2, length_, t).copy_(slot.values.narrow(2, length_, t));
  }
  prefetch(other, next, next_tokens);
  next_slot_ = 1 - next_slot_;
  return {slot.keys.narrow(2, 0, length_ + t), slot.values.narrow(2, 0, length_ + t)};
}

std::unique_ptr<KVCache> make_kv_cache(const KVCacheShape& shape, at::TensorOptions options,
                                       CachePlacement placement) {
  if (placement == CachePlacement::kOffloaded)
    return std::make_unique<OffloadedKVCache>(shape, options);
  return std::make_unique<DeviceKVCache>(shape, options);
}

}  // namespace docsift::model
