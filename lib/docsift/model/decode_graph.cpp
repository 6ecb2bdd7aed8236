#include "docsift/model/decode_graph.h"

#include "docsift/device/cuda_backend.h"
#include "docsift/error.h"

namespace docsift::model {

bool DecodeGraph::supported(const Decoder& decoder, const KVCache& cache) {
  return dynamic_cast<const DeviceKVCache*>(&cache) != nullptr &&
         decoder.embed_device().is_cuda() && device::loaded_cuda_backend() != nullptr &&
         decoder.fixed_step_supported(cache.capacity());
}

DecodeGraph::DecodeGraph(const Decoder& decoder, DeviceKVCache& cache, bool capture)
    : decoder_(decoder),
      cache_(cache),
      capture_(capture),
      inputs_(decoder.fixed_step(cache.capacity())) {
  // The step reads every position of the cache and masks the unwritten ones, but a masked
  // position still meets its value row with weight 0, and 0 · NaN is NaN: the cache's storage
  // is uninitialised memory, so the positions not written yet are zeroed once, here.
  const int64_t written = cache.length(), rest = cache.capacity() - written;
  for (int64_t i = 0; i < cache.shape().layers && rest > 0; ++i) {
    const auto [keys, values] = cache.storage(i);
    keys.narrow(2, written, rest).zero_();
    values.narrow(2, written, rest).zero_();
  }
}

DecodeGraph::~DecodeGraph() = default;

at::Tensor DecodeGraph::step(int32_t token) {
  cache_.check_room(1);
  // Two small fills queued on the current stream, ahead of the replay that reads them.
  inputs_.ids.fill_(static_cast<int64_t>(token));
  inputs_.position.fill_(cache_.length());
  if (!capture_) {
    logits_ = decoder_.forward_fixed(inputs_, cache_);
  } else {
    if (!graph_) {
      const device::CudaBackend* backend = device::loaded_cuda_backend();
      if (backend == nullptr)
        throw Error("DecodeGraph: CUDA tensors without the CUDA plugin loaded");
      graph_ = backend->capture_graph(
          decoder_.embed_device(), [this] { logits_ = decoder_.forward_fixed(inputs_, cache_); });
    }
    graph_->replay();
  }
  cache_.commit(1);
  return logits_.clone();
}

}  // namespace docsift::model
