#include "docsift/model/decoder.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <tuple>

#include "docsift/device/vector_math.h"
#include "docsift/error.h"
#include "docsift/model/weights.h"

namespace docsift::model {
namespace {

// Where `clamp` holds the float16 residual stream: float16's largest finite value less a margin,
// as transformers' T5 clamps (so one more addition of a small update stays finite).
constexpr double kFloat16ResidualLimit = 65504.0 - 1000.0;

}  // namespace

SwiGLU load_swiglu(WeightLoader& load, const std::string& prefix, int64_t hidden,
                   int64_t intermediate, bool int8, bool bias) {
  SwiGLU m;
  m.gate_up = load.take_linear_stacked(
      {{prefix + "gate_proj.", intermediate}, {prefix + "up_proj.", intermediate}}, hidden, bias,
      int8);
  m.down = load.take_linear(prefix + "down_proj.", hidden, intermediate, bias, int8);
  return m;
}

at::Tensor swiglu(const SwiGLU& m, const at::Tensor& x, const DequantScratch* scratch) {
  const at::Tensor gate_up = linear(x, m.gate_up, scratch);  // [..., 2·I]: gate, then up
  const int64_t i = gate_up.size(-1) / 2;
  return linear(at::silu(gate_up.narrow(-1, 0, i)).mul(gate_up.narrow(-1, i, i)), m.down, scratch);
}

Decoder::Decoder(WeightLoader& load, const DecoderConfig& c, const std::string& prefix,
                 const std::string& lm_head, const Numerics& numerics, at::Device device)
    : config_(c),
      numerics_(numerics),
      device_(device),
      residual_dtype_(numerics.dtype == at::kHalf &&
                              numerics.float16_residual == model::Float16Residual::Float32
                          ? at::kFloat
                          : numerics.dtype) {
  // Every family's language model is a Decoder, built before any of the model's ops run: MKL's
  // vector math is settled here, or RoPE's first cos, on two threads, can be 1e-4 off
  // (device/vector_math.h).
  device::settle_vector_math();
  const bool int8 = numerics.quantization == model::Quantization::Int8;
  const bool bias = c.attention_bias;
  const int64_t q_out = c.heads * c.head_dim, kv_out = c.kv_heads * c.head_dim;
  embed_ = load.take(prefix + "embed_tokens.weight", {c.embedding_table_rows(), c.hidden});
  for (int64_t i = 0; i < c.layers; ++i) {
    Layer l;
    if (c.is_family_layer(i)) {
      layers_.push_back(std::move(l));
      continue;
    }
    const std::string p = prefix + "layers." + std::to_string(i) + ".";
    l.input_norm = load.take(p + "input_layernorm.weight", {c.hidden});
    l.post_norm = load.take(p + "post_attention_layernorm.weight", {c.hidden});
    l.qkv = load.take_linear_stacked({{p + "self_attn.q_proj.", q_out},
                                      {p + "self_attn.k_proj.", kv_out},
                                      {p + "self_attn.v_proj.", kv_out}},
                                     c.hidden, bias, int8);
    if (c.qk_norm) {
      l.q_norm = load.take(p + "self_attn.q_norm.weight", {c.head_dim});
      l.k_norm = load.take(p + "self_attn.k_norm.weight", {c.head_dim});
    }
    l.o = load.take_linear(p + "self_attn.o_proj.", c.hidden, q_out, /*bias=*/false, int8);
    l.mlp = load_swiglu(load, p + "mlp.", c.hidden, c.intermediate, int8);
    layers_.push_back(std::move(l));
  }
  norm_ = load.take(prefix + "norm.weight", {c.hidden});
  // Tied embeddings: config says so, or the checkpoint simply has no lm_head.
  if (c.tie_embeddings || !load.has(lm_head)) {
    if (load.has(lm_head)) load.skip(lm_head);
    // Tied and int8: an int8 copy for the output projection (the lookup keeps the dense table).
    const at::Tensor head = embed_.defined() ? embed_.slice(0, 0, c.vocab) : embed_;
    lm_head_ = int8 && head.defined() ? quantize_int8(head, device) : LinearWeight{head, {}, {}};
  } else {
    lm_head_ = load.take_linear(lm_head.substr(0, lm_head.size() - std::string("weight").size()),
                                c.vocab, c.hidden,
                                /*bias=*/false, int8);
  }
  if (int8) {
    // The dequantize path (prefill on the GPU, the CPU's prompt rows) reuses one buffer as large
    // as the largest projection; larger layers (lm_head) go through it in blocks.
    scratch_ = DequantScratch(decoder_int8_terms(c).scratch_elements, numerics.dtype, device);
  }
}

bool Decoder::defined() const { return embed_.defined() && norm_.defined() && lm_head_.defined(); }

std::size_t Decoder::parameter_bytes() const {
  std::size_t total = embed_.defined() ? embed_.nbytes() : 0;
  total += norm_.defined() ? norm_.nbytes() : 0;
  // A tied, unquantized lm_head is a view of the embedding table: counted once.
  const bool shared = embed_.defined() && lm_head_.weight.defined() && !lm_head_.quantized() &&
                      lm_head_.weight.data_ptr() == embed_.data_ptr();
  if (!shared) total += lm_head_.nbytes();
  for (const auto& l : layers_) {
    for (const at::Tensor* t : {&l.input_norm, &l.post_norm, &l.q_norm, &l.k_norm})
      total += t->defined() ? t->nbytes() : 0;
    total += l.qkv.nbytes() + l.o.nbytes();
    total += l.mlp.nbytes();
  }
  return total;
}

at::Tensor Decoder::embed_tokens(const at::Tensor& ids) const {
  return at::embedding(embed_, ids.to(device_, at::kLong));
}

at::Tensor Decoder::to_residual(const at::Tensor& embeds) const {
  return embeds.to(residual_dtype_);
}

RopeTables Decoder::rope(int64_t start, int64_t length) const {
  const RopeTables t = rope_tables(config_.rope, start, length, numerics_.dtype, device_);
  return {t.cos.unsqueeze(1), t.sin.unsqueeze(1)};  // [T, 1, hd]: layer() rotates [1, T, heads, hd]
}

bool Decoder::clamps_residual() const {
  return numerics_.dtype == at::kHalf &&
         numerics_.float16_residual == model::Float16Residual::Clamp;
}

at::Tensor Decoder::residual_add(const at::Tensor& x, const at::Tensor& update) const {
  // Under the float16 guard x is float32 and the float16 update is promoted: some decoders'
  // massive activations grow past 65,504 over a few layers while every sublayer output stays in
  // range.
  at::Tensor sum = x.add(update);
  return clamps_residual() ? sum.clamp(-kFloat16ResidualLimit, kFloat16ResidualLimit) : sum;
}

// At decode the LibTorch form of a norm is nine small kernels on a [1, H] row, and the fused
// kernel one (device/cuda_plugin/add_rms_norm.h says what it saves). Where the kernel does not
// take the call (the CPU, a plugin without kernels) the LibTorch ops below run.
at::Tensor Decoder::norm(const at::Tensor& x, const at::Tensor& weight) const {
  if (numerics_.fused_norm) {
    if (auto fused =
            fused_add_rms_norm(x, at::Tensor(), weight, config_.rms_eps, 0.0, numerics_.dtype)) {
      return fused->normed;
    }
  }
  return as_dtype(rms_norm(x, weight, config_.rms_eps), numerics_.dtype);
}

std::pair<at::Tensor, at::Tensor> Decoder::add_norm(const at::Tensor& x, const at::Tensor& update,
                                                    const at::Tensor& weight) const {
  if (numerics_.fused_norm) {
    const double clamp = clamps_residual() ? kFloat16ResidualLimit : 0.0;
    if (auto fused =
            fused_add_rms_norm(x, update, weight, config_.rms_eps, clamp, numerics_.dtype)) {
      return {fused->sum, fused->normed};
    }
  }
  at::Tensor sum = residual_add(x, update);
  return {sum, norm(sum, weight)};
}

at::Tensor Decoder::project(const at::Tensor& x, const LinearWeight& w) const {
  if (numerics_.decode_kernels) {
    if (at::Tensor y = fused_gemv(x, w); y.defined()) return y;
  }
  return linear(x, w, &scratch_);
}

at::Tensor Decoder::mlp(const SwiGLU& m, const at::Tensor& x) const {
  if (numerics_.decode_kernels) {
    if (at::Tensor act = fused_swiglu_gemv(x, m.gate_up); act.defined())
      return project(act, m.down);
  }
  return swiglu(m, x, &scratch_);
}

at::Tensor Decoder::layer(int64_t i, const at::Tensor& x, KVCache& cache, int64_t cache_layer,
                          const RopeTables& rope) const {
  const auto [after_attention, update] = layer_with(
      i, x, at::Tensor(), rope, [&](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
        const auto [keys, values] = cache.append(cache_layer, k, v);
        return attention(q, keys, values, /*causal=*/true);
      });
  return residual_add(after_attention, update);
}

std::pair<at::Tensor, at::Tensor> Decoder::layer_with(int64_t i, const at::Tensor& x,
                                                      const at::Tensor& pending,
                                                      const RopeTables& rope, const Attend& attend,
                                                      const AttendFused& fused) const {
  const DecoderConfig& c = config_;
  const Layer& l = layers_[static_cast<std::size_t>(i)];
  const int64_t t = x.size(1);
  // The norms compute in float32; their outputs, which feed the matmuls, are in the dtype.
  const auto [stream, h] = pending.defined()
                               ? add_norm(x, pending, l.input_norm)
                               : std::pair<at::Tensor, at::Tensor>{x, norm(x, l.input_norm)};
  // One matmul: [1, T, (nh + 2·nkv)·hd] as [1, T, nh + 2·nkv, hd]. q and k, its first nh + nkv
  // heads, are rotated in one pass; then q [1, nh, T, hd], k and v [1, nkv, T, hd] are views.
  const at::Tensor qkv = project(h, l.qkv).view({1, t, c.heads + 2 * c.kv_heads, c.head_dim});
  // The head norms (qk_norm) are not in the fused kernels: those layers take the ops below.
  std::optional<at::Tensor> a_fused = fused && !c.qk_norm ? fused(qkv) : std::nullopt;
  const at::Tensor a = a_fused ? *a_fused : attend_unfused(qkv, l, rope, attend);
  const auto [after_attention, m] = add_norm(stream, project(a, l.o), l.post_norm);
  return {after_attention, mlp(l.mlp, m)};
}

at::Tensor Decoder::attend_unfused(const at::Tensor& qkv, const Layer& l, const RopeTables& rope,
                                   const Attend& attend) const {
  const DecoderConfig& c = config_;
  const int64_t t = qkv.size(1);
  at::Tensor qk = qkv.narrow(2, 0, c.heads + c.kv_heads);
  if (c.qk_norm) {
    // Each head normalised over hd, q heads with q_norm and k heads with k_norm, before RoPE. qk is
    // in the dtype, so norm() is rms_norm here; at decode (T = 1) each narrow is contiguous and
    // takes the fused kernel.
    qk = at::cat({norm(qk.narrow(2, 0, c.heads), l.q_norm),
                  norm(qk.narrow(2, c.heads, c.kv_heads), l.k_norm)},
                 2);
  }
  qk = apply_rope(qk, rope);
  const at::Tensor q = qk.narrow(2, 0, c.heads).transpose(1, 2);
  const at::Tensor k = qk.narrow(2, c.heads, c.kv_heads).transpose(1, 2);
  const at::Tensor v = qkv.narrow(2, c.heads + c.kv_heads, c.kv_heads).transpose(1, 2);
  return attend(q, k, v).transpose(1, 2).reshape({1, t, c.heads * c.head_dim});
}

bool Decoder::fixed_step_supported(int64_t capacity) const {
  return config_.family_layers.empty() &&
         (!config_.rope.dynamic || capacity <= config_.rope.max_position_embeddings);
}

FixedStep Decoder::fixed_step(int64_t capacity) const {
  if (!fixed_step_supported(capacity))
    throw Error("Decoder::fixed_step: this decoder's steps depend on the length");
  const auto ids = at::TensorOptions().dtype(at::kLong).device(device_);
  // rope(0, capacity) is [capacity, 1, hd]; the step picks its row by position.
  const RopeTables tables = rope(0, capacity);
  return {at::zeros({1}, ids), at::zeros({1}, ids), tables.cos.squeeze(1), tables.sin.squeeze(1),
          at::arange(capacity, ids)};
}

at::Tensor Decoder::forward_fixed(const FixedStep& step, DeviceKVCache& cache) const {
  // [1, 1, hd] each, as rope(position, 1) would give; [1, 1, 1, capacity] true up to the position.
  const RopeTables rope{step.cos.index_select(0, step.position).unsqueeze(1),
                        step.sin.index_select(0, step.position).unsqueeze(1)};
  const at::Tensor visible = step.slots.le(step.position).view({1, 1, 1, -1});
  at::Tensor x = to_residual(at::embedding(embed_, step.ids).unsqueeze(0));  // [1, 1, H]
  at::Tensor pending;  // the last layer's MLP output, added in the next norm's kernel
  for (int64_t i = 0; i < config_.layers; ++i) {
    const auto [keys, values] = cache.storage(i);
    const auto attend = [&](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
      keys.index_copy_(2, step.position, k);
      values.index_copy_(2, step.position, v);
      return attention_step(q, keys, values, visible);
    };
    const auto fused = [&](const at::Tensor& qkv) -> std::optional<at::Tensor> {
      if (!numerics_.decode_kernels) return std::nullopt;
      return fused_decode_attention(qkv, step.cos, step.sin, step.position, keys, values);
    };
    std::tie(x, pending) = layer_with(i, x, pending, rope, attend, fused);
  }
  return head(add_norm(x, pending, norm_).second.select(1, 0));  // [1, H]
}

at::Tensor Decoder::logits(const at::Tensor& x) const {
  return head(norm(x.select(1, x.size(1) - 1), norm_));  // [1, H]
}

at::Tensor Decoder::head(const at::Tensor& normed) const {
  return project(normed, lm_head_).to(at::kFloat).squeeze(0);
}

at::Tensor Decoder::forward(const at::Tensor& embeds, KVCache& cache) const {
  if (!config_.family_layers.empty())
    throw Error("Decoder::forward: the family runs decoders with layers of its own");
  return forward(embeds, cache, rope(cache.length(), embeds.size(1)));
}

at::Tensor Decoder::forward(const at::Tensor& embeds, KVCache& cache,
                            const RopeTables& tables) const {
  if (!config_.family_layers.empty())
    throw Error("Decoder::forward: the family runs decoders with layers of its own");
  at::Tensor x = to_residual(embeds);
  for (int64_t i = 0; i < config_.layers; ++i) x = layer(i, x, cache, i, tables);
  cache.commit(embeds.size(1));
  return logits(x);
}

}  // namespace docsift::model
