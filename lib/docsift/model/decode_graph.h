// Decode steps replayed as one CUDA graph (docs/gpu.md, "Decode at the limit"). A decode step of
// the 8B decoder is about 4,000 LibTorch operators of a few microseconds of host time each, while
// its kernels need a few milliseconds: launched one by one, the GPU waits on the host. Captured
// once per sequence, a step is one graph launch. What makes that possible is
// Decoder::forward_fixed: the same step with shapes and addresses that do not change as the
// cache fills.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

#include "docsift/model/decoder.h"
#include "docsift/model/kv_cache.h"

namespace docsift::device {
class CudaGraph;
}

namespace docsift::model {

class DecodeGraph {
 public:
  // Whether steps of `decoder` over `cache` can be replayed: a CUDA device with the plugin
  // loaded, the cache on the device, and Decoder::fixed_step_supported.
  static bool supported(const Decoder& decoder, const KVCache& cache);

  // `capture` false runs forward_fixed eagerly at each step (what the graph replays; the CPU
  // tests compare it with forward). Both must outlive this object.
  DecodeGraph(const Decoder& decoder, DeviceKVCache& cache, bool capture = true);
  ~DecodeGraph();
  DecodeGraph(const DecodeGraph&) = delete;
  DecodeGraph& operator=(const DecodeGraph&) = delete;

  // Feeds `token` at the cache's length and commits it: float32 logits [V], a copy the next step
  // does not overwrite. The first step captures the graph (an eager warm-up pass included).
  at::Tensor step(int32_t token);

 private:
  const Decoder& decoder_;
  DeviceKVCache& cache_;
  bool capture_;
  FixedStep inputs_;
  at::Tensor logits_;  // the step's output, at the address the graph writes
  std::unique_ptr<device::CudaGraph> graph_;
};

}  // namespace docsift::model
