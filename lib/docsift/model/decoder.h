// The Llama-style decoder the families' language models share: per layer, RMSNorm → grouped-query
// attention with RoPE (optional q/k/v biases; optional RMSNorms on each query and key head before
// RoPE) → residual add; RMSNorm → SwiGLU MLP → residual add. Then a final RMSNorm and lm_head.
// A family whose language model has layers of another kind among these (DecoderConfig's
// family_layers) runs them itself, between the decoder's own layer() calls.
// Linear layers are dense or int8 (linear.h); with float16 the residual stream between layers is
// kept in float32 (model.float16_residual). Shapes: T query tokens, H hidden, nh/nkv heads, hd head
// dim, V vocabulary.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/model/blocks.h"
#include "docsift/model/decoder_config.h"
#include "docsift/model/kv_cache.h"
#include "docsift/model/linear.h"
#include "docsift/model/precision.h"

namespace docsift::model {

class WeightLoader;

// The SwiGLU MLP both kinds of layer use: down(silu(gate(x)) · up(x)). gate and up are stacked
// into one [2·I, H] layer at load (stack_outputs): one matmul, then the halves.
struct SwiGLU {
  LinearWeight gate_up, down;
  std::size_t nbytes() const { return gate_up.nbytes() + down.nbytes(); }
};
// `bias`: the three projections have biases (some vision blocks' have; the decoders' have none).
SwiGLU load_swiglu(WeightLoader& load, const std::string& prefix, int64_t hidden,
                   int64_t intermediate, bool int8, bool bias = false);
at::Tensor swiglu(const SwiGLU& mlp, const at::Tensor& x, const DequantScratch* scratch);

// A one-token decode step whose tensors keep their shapes and addresses from step to step, so that
// a CUDA graph can replay it (model/decode_graph.h): the token and its position are device
// tensors the caller fills, RoPE comes from tables for the cache's whole capacity, and attention
// reads the whole cache under a mask (attention_step).
struct FixedStep {
  at::Tensor ids;       // [1] int64: the token fed
  at::Tensor position;  // [1] int64: its position, the cache's length before the step
  at::Tensor cos, sin;  // [capacity, hd] in the dtype, rows as rope(0, capacity) gives them
  at::Tensor slots;  // [capacity] int64: 0 … capacity − 1, compared with position for the mask
};

class Decoder {
 public:
  // Names: `prefix` + "embed_tokens.weight", "layers.{i}.…", "norm.weight"; lm_head at `lm_head`
  // (absent or tied: the embedding table). With int8 every projection and lm_head are quantized
  // as they stream in, and one dequantize scratch buffer is made for the largest projection.
  Decoder(WeightLoader& load, const DecoderConfig& config, const std::string& prefix,
          const std::string& lm_head, const Numerics& numerics, at::Device device);

  const DecoderConfig& config() const { return config_; }
  // ids [T] int64 → [T, H] in the dtype.
  at::Tensor embed_tokens(const at::Tensor& ids) const;
  // embeds [1, T, H] → the residual stream's dtype (float32 under the float16 guard).
  at::Tensor to_residual(const at::Tensor& embeds) const;
  // Self-attention layer `i` over x [1, T, H] (residual dtype) at positions [cache.length(), +T),
  // appending its keys and values to `cache` layer `cache_layer`; returns the new x.
  at::Tensor layer(int64_t i, const at::Tensor& x, KVCache& cache, int64_t cache_layer,
                   const RopeTables& rope) const;
  // Final norm and lm_head of the last position: float32 logits [V].
  at::Tensor logits(const at::Tensor& x) const;
  // Every layer in order (cache layer i for layer i), then logits(); commits T tokens to the cache.
  // For decoders without family layers.
  at::Tensor forward(const at::Tensor& embeds, KVCache& cache) const;
  // The same with the caller's RoPE tables [T, 1, hd] (multimodal positions, model/mrope.h, or
  // positions offset from the cache's length).
  at::Tensor forward(const at::Tensor& embeds, KVCache& cache, const RopeTables& rope) const;
  // Whether forward_fixed gives what forward gives for every position below `capacity`: no
  // family layers, and RoPE tables that do not depend on the sequence's length (dynamic
  // NTK scaling changes them past max_position_embeddings).
  bool fixed_step_supported(int64_t capacity) const;
  // Buffers for forward_fixed over a cache of `capacity` tokens, on the decoder's device.
  FixedStep fixed_step(int64_t capacity) const;
  // One token through every layer as `step` says, writing keys and values at step.position of
  // `cache` (commit is the caller's, once the step ran): float32 logits [V]. Queues device work
  // only, no host reads.
  at::Tensor forward_fixed(const FixedStep& step, DeviceKVCache& cache) const;
  // RoPE tables for layer(), shaped [T, 1, hd]: it rotates q and k as [1, T, heads, hd].
  RopeTables rope(int64_t start, int64_t length) const;
  // x + update in the residual stream's dtype (clamped under float16_residual: clamp).
  at::Tensor residual_add(const at::Tensor& x, const at::Tensor& update) const;
  const Numerics& numerics() const { return numerics_; }
  at::Device embed_device() const { return device_; }  // where the weights are
  // The dequantize scratch, shared with the family's own layers (int8 only; else empty).
  const DequantScratch* scratch() const { return &scratch_; }

  std::size_t parameter_bytes() const;  // as held, int8 and scales included
  std::size_t scratch_bytes() const { return scratch_.nbytes(); }
  bool defined() const;  // every weight loaded (false after a load problem was recorded)

 private:
  // Attention for layer_with(): q [1, nh, T, hd], k and v [1, nkv, T, hd] (rotated) → [1, nh, T,
  // hd]; it also stores k and v wherever the caller keeps them.
  using Attend =
      std::function<at::Tensor(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v)>;
  // Optional, tried first: RoPE, the cache write and attention in one, from the token's
  // qkv [1, 1, nh + 2·nkv, hd] before RoPE → [1, 1, nh·hd], or nullopt to go through `attend`.
  using AttendFused = std::function<std::optional<at::Tensor>(const at::Tensor& qkv)>;
  // Layer i over x + pending (the previous layer's MLP output not yet added, or undefined), the add
  // done with the input norm (add_norm: one kernel under fused_norm). Returns {the stream after
  // attention, the MLP's output}: the layer's result is their sum, left to the caller, which may
  // fold it into the next norm the same way.
  std::pair<at::Tensor, at::Tensor> layer_with(int64_t i, const at::Tensor& x,
                                               const at::Tensor& pending, const RopeTables& rope,
                                               const Attend& attend,
                                               const AttendFused& fused = {}) const;
  // lm_head over the final norm's output [1, H]: float32 logits [V].
  at::Tensor head(const at::Tensor& normed) const;
  // linear() through docsift's decode GEMV first under Numerics::decode_kernels (linear.h).
  at::Tensor project(const at::Tensor& x, const LinearWeight& w) const;
  // The layer's SwiGLU MLP; its gate/up product and activation in one kernel under decode_kernels.
  at::Tensor mlp(const SwiGLU& m, const at::Tensor& x) const;
  struct Layer;
  // RoPE, attend and the heads side by side: qkv [1, T, nh + 2·nkv, hd] → [1, T, nh·hd].
  at::Tensor attend_unfused(const at::Tensor& qkv, const Layer& l, const RopeTables& rope,
                            const Attend& attend) const;
  // as_dtype(rms_norm(x, weight), dtype), the input of a matmul.
  at::Tensor norm(const at::Tensor& x, const at::Tensor& weight) const;
  // {residual_add(x, update), norm(that sum, weight)}; one kernel under Numerics::fused_norm.
  std::pair<at::Tensor, at::Tensor> add_norm(const at::Tensor& x, const at::Tensor& update,
                                             const at::Tensor& weight) const;
  bool clamps_residual() const;  // float16_residual: clamp, with dtype float16

  struct Layer {  // empty at the family's layers
    at::Tensor input_norm, post_norm;
    at::Tensor q_norm, k_norm;  // [hd], with qk_norm only
    LinearWeight qkv, o;        // q, k and v stacked at load: [nh·hd + 2·nkv·hd, H]
    SwiGLU mlp;
  };

  DecoderConfig config_;
  Numerics numerics_;
  at::Device device_;
  at::ScalarType residual_dtype_;
  at::Tensor embed_, norm_;
  LinearWeight lm_head_;  // shares embed_ when tied and not quantized
  std::vector<Layer> layers_;
  DequantScratch scratch_;
};

}  // namespace docsift::model
