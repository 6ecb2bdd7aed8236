// Building blocks shared by the model files: projections, norms, rotary embeddings, attention.
// Shapes: B batch, T query tokens, S key tokens, H hidden, nh/nkv heads, hd head dim.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

#include "docsift/model/decoder_config.h"

namespace docsift::model {

// x @ weightᵀ + bias; weight [out, in], bias [out] or undefined.
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias = {});

// LayerNorm over the last dimension.
at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                      double eps);

// `t` in `dtype`, with no operator call when it already is: a decode step runs these per layer,
// and every dispatched call costs host time (a no-op at::Tensor::to is still one).
inline at::Tensor as_dtype(const at::Tensor& t, at::ScalarType dtype) {
  return t.scalar_type() == dtype ? t : t.to(dtype);
}

// The decoders' RMSNorm: normalised in float32, cast back to x's dtype, then scaled by `weight`
// (held in float32; the product is cast to x's dtype as the reference does).
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// x + update (update undefined: x alone) and as_dtype(rms_norm(sum, weight, eps), out) in one
// launch of the CUDA plugin's kernel (device/cuda_plugin/add_rms_norm.h), the sum clamped to
// [−clamp, clamp] when clamp > 0. nullopt, having done nothing, where the kernel does not take
// the call: not a CUDA tensor, a plugin without kernels, x or update not contiguous, x + update
// not of x's dtype, a dtype other than float32/float16/bfloat16. x [..., n], weight [n].
struct NormedSum {
  at::Tensor sum;     // x's shape and dtype (x itself when update is undefined)
  at::Tensor normed;  // x's shape, `out`
};
std::optional<NormedSum> fused_add_rms_norm(const at::Tensor& x, const at::Tensor& update,
                                            const at::Tensor& weight, double eps, double clamp,
                                            at::ScalarType out);

// Rotary position embedding: RopeConfig (decoder_config.h) says which rule.

// inv_freq [hd/2] float32 for a sequence of `seq_len` tokens (the dynamic rule reads it).
at::Tensor rope_inv_freq(const RopeConfig& config, int64_t seq_len, at::Device device);

struct RopeTables {
  at::Tensor cos, sin;  // [T, hd] in the activation dtype
};

// Tables for positions [start, start + length); `seq_len` = start + length selects the dynamic
// base. float32 arithmetic throughout, as the reference computes it.
RopeTables rope_tables(const RopeConfig& config, int64_t start, int64_t length,
                       at::ScalarType dtype, at::Device device);

// x [B, heads, T, hd] rotated by the tables.
at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables);

// Softmax attention. q [B, nh, T, hd]; k, v [B, nkv, S, hd] with nh a multiple of nkv (grouped
// query attention). `causal`: query i (at absolute position S − T + i) sees keys ≤ its position.
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);
// One query position over a whole fixed-size cache: q [B, nh, 1, hd], k and v [B, nkv, S, hd], and
// `visible` [1, 1, 1, S] bool, true at the positions written so far (the query's own included).
// Grouped heads are read in place as in attention()'s decode step. Shapes never depend on how
// much of the cache is filled, so a CUDA graph can replay it (model/decode_graph.h).
at::Tensor attention_step(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& visible);

// A decode step's RoPE, cache write and attention_step as docsift's two kernels
// (device/cuda_plugin/decode_attention.h), for a step whose position is a device tensor:
//   qkv [1, 1, nh + 2·nkv, hd] (the q, k and v heads of one token; contiguous), cos and sin
//   [capacity, hd] (FixedStep's tables), position [1] int64, keys and values [1, nkv, capacity, hd]
//   (the layer's storage; position's row written) → [1, 1, nh·hd], the heads' outputs side by side,
// what apply_rope, index_copy_ and attention_step give with their roundings (scores and softmax in
// float32 both ways, summed in another order). nullopt, having done nothing, where the kernels do
// not take the call: not CUDA, a plugin without kernels, dtypes that differ, a shape they refuse.
std::optional<at::Tensor> fused_decode_attention(const at::Tensor& qkv, const at::Tensor& cos,
                                                 const at::Tensor& sin, const at::Tensor& position,
                                                 const at::Tensor& keys, const at::Tensor& values);

}  // namespace docsift::model
