#include "docsift/model/blocks.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/layer_norm.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/tril.h>
#include <ATen/ops/where.h>

#include <ATen/ops/empty.h>
#include <c10/core/ScalarType.h>

#include <cmath>
#include <optional>

#include "docsift/device/cuda_backend.h"

namespace docsift::model {

at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return at::linear(x, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt);
}

at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                      double eps) {
  return at::layer_norm(x, {x.size(-1)}, weight, bias, eps);
}

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor normed = xf.mul(at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true).add(eps)));
  return as_dtype(weight.mul(as_dtype(normed, x.scalar_type())), x.scalar_type());
}

std::optional<NormedSum> fused_add_rms_norm(const at::Tensor& x, const at::Tensor& update,
                                            const at::Tensor& weight, double eps, double clamp,
                                            at::ScalarType out) {
  if (!x.is_cuda() || !x.is_contiguous() || x.dim() < 1) return std::nullopt;
  // A CUDA tensor means the plugin is loaded (device/cuda_backend.h).
  const device::CudaBackend* cuda = device::loaded_kernels();
  if (cuda == nullptr) return std::nullopt;
  const int64_t n = x.size(-1);
  const bool add = update.defined();
  if (add &&
      (!update.is_contiguous() || update.sizes() != x.sizes() || update.device() != x.device() ||
       c10::promoteTypes(x.scalar_type(), update.scalar_type()) != x.scalar_type())) {
    return std::nullopt;
  }
  if (weight.dim() != 1 || weight.size(0) != n || !weight.is_contiguous() ||
      weight.device() != x.device()) {
    return std::nullopt;
  }
  using device::kernel_type;
  const auto tx = kernel_type(x.scalar_type()),
             tu = kernel_type(add ? update.scalar_type() : x.scalar_type()),
             tw = kernel_type(weight.scalar_type()),
             tp = kernel_type(c10::promoteTypes(weight.scalar_type(), x.scalar_type())),
             to = kernel_type(out);
  if (!tx || !tu || !tw || !tp || !to) return std::nullopt;
  NormedSum r{add ? at::empty(x.sizes(), x.options()) : x,
              at::empty(x.sizes(), x.options().dtype(out))};
  const bool launched = cuda->add_rms_norm(
      {*tx, *tu, *tw, *tp, *to}, x.const_data_ptr(), add ? update.const_data_ptr() : nullptr,
      weight.const_data_ptr(), add ? r.sum.mutable_data_ptr() : nullptr,
      r.normed.mutable_data_ptr(), n == 0 ? 0 : x.numel() / n, n, static_cast<float>(eps),
      static_cast<float>(clamp), x.device());
  if (!launched) return std::nullopt;
  return r;
}

at::Tensor rope_inv_freq(const RopeConfig& config, int64_t seq_len, at::Device device) {
  const auto float_options = at::TensorOptions().dtype(at::kFloat).device(device);
  const int64_t dim = config.head_dim;
  double base = config.theta;
  if (config.dynamic) {
    // base · (factor · L / max − (factor − 1))^(dim / (dim − 2)), L = max(seq_len, max), in
    // float32.
    const int64_t len = std::max(seq_len, config.max_position_embeddings);
    const float ratio = static_cast<float>(config.factor) * static_cast<float>(len) /
                            static_cast<float>(config.max_position_embeddings) -
                        static_cast<float>(config.factor - 1.0);
    base = static_cast<float>(config.theta) *
           std::pow(ratio,
                    static_cast<float>(static_cast<double>(dim) / static_cast<double>(dim - 2)));
  }
  // inv_freq[i] = 1 / base^(2i / dim); [dim/2]
  const at::Tensor exponents =
      at::arange(0, dim, 2, float_options.dtype(at::kLong)).to(at::kFloat).div(dim);
  at::Tensor inv_freq = at::pow(base, exponents).reciprocal();
  if (config.llama3) {
    // By wavelength 2π/inv_freq against L = original_max_position_embeddings: longer than L/low →
    // inv_freq/factor; shorter than L/high → unchanged; between, a linear blend in L/wavelength.
    const double l = static_cast<double>(config.original_max_position_embeddings);
    const double low = config.low_freq_factor, high = config.high_freq_factor,
                 factor = config.factor;
    const at::Tensor wavelen = inv_freq.reciprocal().mul(2.0 * M_PI);
    const at::Tensor smooth =
        wavelen.reciprocal().mul(l).sub(low).div(high - low);  // (L/wavelen − low)/(high − low)
    // transformers' order of operations, so float32 results match bit for bit: ((1 − s)·f)/factor +
    // s·f.
    const at::Tensor blended =
        smooth.neg().add(1.0).mul(inv_freq).div(factor).add(smooth.mul(inv_freq));
    const at::Tensor scaled = at::where(wavelen.gt(l / low), inv_freq.div(factor), inv_freq);
    const at::Tensor medium = wavelen.ge(l / high).logical_and(wavelen.le(l / low));
    inv_freq = at::where(medium, blended, scaled);
  }
  return inv_freq;
}

RopeTables rope_tables(const RopeConfig& config, int64_t start, int64_t length,
                       at::ScalarType dtype, at::Device device) {
  const at::Tensor inv_freq = rope_inv_freq(config, start + length, device);
  const auto float_options = at::TensorOptions().dtype(at::kFloat).device(device);
  const at::Tensor positions =
      at::arange(start, start + length, float_options.dtype(at::kLong)).to(at::kFloat);
  const at::Tensor freqs = positions.unsqueeze(1).mul(inv_freq.unsqueeze(0));  // [T, dim/2]
  const at::Tensor emb = at::cat({freqs, freqs}, -1);                          // [T, dim]
  return {emb.cos().to(dtype), emb.sin().to(dtype)};
}

at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables) {
  const int64_t half = x.size(-1) / 2;
  const at::Tensor rotated = at::cat({x.slice(-1, half).neg(), x.slice(-1, 0, half)}, -1);
  return x.mul(tables.cos).add(rotated.mul(tables.sin));
}

namespace {

// One query position with grouped heads: the `groups` query heads sharing a kv head become that
// head's query rows, [B, nh, 1, hd] → [B, nkv, groups, hd], so the cache is read in place instead
// of copied `groups` times every token. `mask` [1, 1, 1, S] bool, or none.
at::Tensor grouped_step(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const std::optional<at::Tensor>& mask) {
  const int64_t b = q.size(0), hd = q.size(3), groups = q.size(1) / k.size(1);
  return at::scaled_dot_product_attention(q.reshape({b, k.size(1), groups, hd}), k, v, mask)
      .reshape({b, q.size(1), 1, hd});
}

}  // namespace

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  const int64_t groups = q.size(1) / k.size(1);
  const int64_t t = q.size(2), s = k.size(2);
  // Decode step: one query position sees every key, no mask.
  if (groups > 1 && t == 1) return grouped_step(q, k, v, std::nullopt);
  at::Tensor keys = k, values = v;
  if (groups >
      1) {  // [B, nkv, S, hd] → [B, nkv·groups, S, hd], each kv head serving `groups` q heads
    keys = k.repeat_interleave(groups, 1);
    values = v.repeat_interleave(groups, 1);
  }
  if (!causal || t == 1) return at::scaled_dot_product_attention(q, keys, values);
  if (t == s) return at::scaled_dot_product_attention(q, keys, values, {}, 0.0, /*is_causal=*/true);
  // Queries after a cached prefix: query i sits at position s − t + i.
  const at::Tensor mask = at::ones({t, s}, q.options().dtype(at::kBool)).tril(s - t);
  return at::scaled_dot_product_attention(q, keys, values, mask);
}

at::Tensor attention_step(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& visible) {
  if (q.size(1) == k.size(1)) return at::scaled_dot_product_attention(q, k, v, visible);
  return grouped_step(q, k, v, visible);
}

std::optional<at::Tensor> fused_decode_attention(const at::Tensor& qkv, const at::Tensor& cos,
                                                 const at::Tensor& sin, const at::Tensor& position,
                                                 const at::Tensor& keys, const at::Tensor& values) {
  if (!qkv.is_cuda() || qkv.dim() != 4 || keys.dim() != 4 || keys.size(0) != 1) return std::nullopt;
  const device::CudaBackend* cuda =
      device::loaded_kernels();  // a CUDA tensor: the plugin is loaded
  const auto type = device::kernel_type(qkv.scalar_type());
  if (cuda == nullptr || !type) return std::nullopt;
  const int64_t kv_heads = keys.size(1), capacity = keys.size(2), hd = keys.size(3);
  const int64_t heads = qkv.size(2) - 2 * kv_heads;
  const at::Tensor* all[] = {&qkv, &cos, &sin, &keys, &values};
  for (const at::Tensor* t : all) {
    if (t->scalar_type() != qkv.scalar_type() || !t->is_contiguous() || t->device() != qkv.device())
      return std::nullopt;
  }
  if (qkv.size(0) != 1 || qkv.size(1) != 1 || qkv.size(3) != hd || heads < 1 ||
      values.sizes() != keys.sizes() || cos.dim() != 2 || cos.size(0) != capacity ||
      cos.size(1) != hd || sin.sizes() != cos.sizes() || position.scalar_type() != at::kLong ||
      position.numel() != 1 || position.device() != qkv.device()) {
    return std::nullopt;
  }
  namespace plugin = device::cuda_plugin;
  at::Tensor out = at::empty({1, 1, heads * hd}, qkv.options());
  const at::Tensor partial =
      at::empty({plugin::decode_attention_partial_floats(heads, hd, capacity)},
                qkv.options().dtype(at::kFloat));
  plugin::DecodeAttentionArgs args;
  args.type = *type;
  args.qkv = qkv.const_data_ptr();
  args.cos = cos.const_data_ptr();
  args.sin = sin.const_data_ptr();
  args.position = position.const_data_ptr<int64_t>();
  args.keys = keys.data_ptr();
  args.values = values.data_ptr();
  args.out = out.mutable_data_ptr();
  args.partial = partial.data_ptr<float>();
  args.heads = heads;
  args.kv_heads = kv_heads;
  args.head_dim = hd;
  args.capacity = capacity;
  args.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));  // SDPA's default
  if (!cuda->decode_attention(args, qkv.device())) return std::nullopt;
  return out;
}

}  // namespace docsift::model
