// docsift's decode kernels (device/cuda_plugin/gemv16.h, decode_attention.h) against the LibTorch
// ops they replace, on a GPU: the dense GEMV and its SwiGLU form against at::linear and
// model::swiglu's ops, the decode step's attention against apply_rope + index_copy_ +
// attention_step. The decoders' tokens with the kernels are checked in test_internvl.cpp. On a
// machine without a GPU (or a CPU LibTorch) every case reports itself skipped.
#include <ATen/ops/arange.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/model/blocks.h"
#include "docsift/model/linear.h"
#include "support/cuda_kernels.h"
#include "support/skip.h"
#include "support/tensor_compare.h"

#include <doctest/doctest.h>

using docsift::testing::max_diff;

namespace {

// One step of `dtype` at the magnitude of 1: the rounding tolerances below are counted in these.
double step_of(at::ScalarType dtype) {
  return dtype == at::kBFloat16 ? 1.0 / 128 : dtype == at::kHalf ? 1.0 / 1024 : 1e-6;
}

// |got − want| against the tolerance, elementwise: `steps` of the dtype relative to |want|, plus an
// absolute floor of `floor` × the largest |want| (sums of thousands of products, summed in another
// order than cuBLAS's, differ in their last bits). Returns the worst ratio (≤ 1 passes).
double worst_ratio(const at::Tensor& got, const at::Tensor& want, double steps, double floor) {
  const at::Tensor g = got.to(at::kFloat), w = want.to(at::kFloat);
  const double scale = w.abs().max().item<double>();
  const at::Tensor tol = w.abs().mul(steps).add(floor * scale + 1e-30);
  if (!g.isfinite().all().item<bool>()) return std::numeric_limits<double>::infinity();
  return g.sub(w).abs().div(tol).max().item<double>();
}

}  // namespace

TEST_CASE(
    "on the CPU the decode GEMV and attention kernels decline, so the decoder keeps LibTorch's "
    "ops") {
  const docsift::model::LinearWeight w{at::randn({32, 64}), {}, {}};
  CHECK_FALSE(docsift::model::fused_gemv(at::randn({1, 64}), w).defined());
  CHECK_FALSE(docsift::model::fused_swiglu_gemv(at::randn({1, 64}), w).defined());
  const at::Tensor cache = at::zeros({1, 2, 8, 16});
  CHECK_FALSE(docsift::model::fused_decode_attention(at::randn({1, 1, 8, 16}), at::randn({8, 16}),
                                                     at::randn({8, 16}), at::zeros({1}, at::kLong),
                                                     cache, cache.clone()));
}

TEST_CASE("on a GPU, the decode GEMV gives at::linear's products and SwiGLU's activations") {
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  const at::Device cuda(at::kCUDA, 0);
  at::manual_seed(11);
  const auto on = at::TensorOptions().device(cuda);
  // [out, in]: the 8B shape's q/k/v, o, down, a tail that is no multiple of 4 outputs, a tiny one.
  const std::vector<std::pair<int64_t, int64_t>> shapes{
      {4608, 3584}, {3584, 3584}, {3584, 18944}, {1002, 48}, {6, 16}};
  for (const at::ScalarType dtype : {at::kBFloat16, at::kHalf, at::kFloat}) {
    for (const auto& [out, in] : shapes) {
      for (int64_t rows = 1; rows <= 4; ++rows) {
        for (const bool with_bias : {false, true}) {
          CAPTURE(dtype);
          CAPTURE(out);
          CAPTURE(in);
          CAPTURE(rows);
          CAPTURE(with_bias);
          const docsift::model::LinearWeight w{
              at::randn({out, in}, on).mul(0.05).to(dtype),
              {},
              with_bias ? at::randn({out}, on).to(dtype) : at::Tensor()};
          const at::Tensor x = at::randn({1, rows, in}, on).to(dtype);
          const at::Tensor got = docsift::model::fused_gemv(x, w);
          REQUIRE(got.defined());
          CHECK(got.sizes() == at::IntArrayRef{1, rows, out});
          const at::Tensor want = at::linear(
              x.to(at::kFloat), w.weight.to(at::kFloat),
              with_bias ? std::optional<at::Tensor>(w.bias.to(at::kFloat)) : std::nullopt);
          // One rounding of a float32 sum: one step of the dtype, with a floor for the order.
          CHECK(worst_ratio(got, want, step_of(dtype), 1e-5) <= 1.0);
          // SwiGLU: the same weight read as stacked gate/up halves (out even), against the ops
          // model::swiglu runs on linear()'s result in the dtype.
          if (out % 2 == 0) {
            const at::Tensor act = docsift::model::fused_swiglu_gemv(x, w);
            REQUIRE(act.defined());
            const at::Tensor gu = at::linear(
                x, w.weight, with_bias ? std::optional<at::Tensor>(w.bias) : std::nullopt);
            const int64_t half = out / 2;
            const at::Tensor ref = at::silu(gu.narrow(-1, 0, half)).mul(gu.narrow(-1, half, half));
            // The gate and up sums may round one step apart from cuBLAS's; silu and the product add
            // two.
            CHECK(worst_ratio(act, ref, 4 * step_of(dtype), 1e-4) <= 1.0);
          }
        }
      }
    }
  }
  // Calls the kernel does not take are declined, not computed wrongly.
  const docsift::model::LinearWeight w{at::randn({8, 24}, on), {}, {}};
  CHECK_FALSE(docsift::model::fused_gemv(at::randn({1, 24}, on), w).defined());  // k % 16
  const docsift::model::LinearWeight w16{at::randn({8, 32}, on), {}, {}};
  CHECK_FALSE(docsift::model::fused_gemv(at::randn({5, 32}, on), w16).defined());  // 5 rows
  CHECK_FALSE(docsift::model::fused_gemv(at::randn({1, 32}, on).to(at::kHalf), w16)
                  .defined());  // mixed dtypes
}

namespace {

struct AttentionCase {
  int64_t heads, kv_heads, hd, capacity, position;
};

// apply_rope, index_copy_ and attention_step, as Decoder::forward_fixed runs them, on copies.
std::pair<at::Tensor, std::pair<at::Tensor, at::Tensor>> reference_step(
    const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, const at::Tensor& pos,
    at::Tensor keys, at::Tensor values, int64_t heads, int64_t kv) {
  const int64_t hd = qkv.size(3);
  const docsift::model::RopeTables rope{cos.index_select(0, pos).unsqueeze(1),
                                        sin.index_select(0, pos).unsqueeze(1)};
  const at::Tensor qk = docsift::model::apply_rope(qkv.narrow(2, 0, heads + kv), rope);
  const at::Tensor q = qk.narrow(2, 0, heads).transpose(1, 2);
  keys.index_copy_(2, pos, qk.narrow(2, heads, kv).transpose(1, 2));
  values.index_copy_(2, pos, qkv.narrow(2, heads + kv, kv).transpose(1, 2));
  const at::Tensor slots = at::arange(keys.size(2), pos.options());
  const at::Tensor visible = slots.le(pos).view({1, 1, 1, -1});
  const at::Tensor a = docsift::model::attention_step(q, keys, values, visible);
  return {a.transpose(1, 2).reshape({1, 1, heads * hd}), {keys, values}};
}

}  // namespace

TEST_CASE("on a GPU, the decode step's RoPE, cache write and attention kernels give LibTorch's") {
  if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
    DOCSIFT_SKIP(why);
  const at::Device cuda(at::kCUDA, 0);
  at::manual_seed(12);
  const auto on = at::TensorOptions().device(cuda);
  // The 8B shape (28 heads over 4, hd 128) at positions on and off the 32-position chunks; the
  // fixtures' (4 over 2, hd 16 and 24); one head per KV head; a position at the last slot.
  const std::vector<AttentionCase> cases{
      {28, 4, 128, 512, 0},   {28, 4, 128, 512, 31}, {28, 4, 128, 512, 32}, {28, 4, 128, 512, 300},
      {28, 4, 128, 512, 511}, {4, 2, 16, 40, 17},    {4, 2, 24, 300, 293},  {8, 8, 64, 70, 69}};
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const AttentionCase& c : cases) {
      CAPTURE(dtype);
      CAPTURE(c.heads);
      CAPTURE(c.hd);
      CAPTURE(c.position);
      const at::Tensor qkv = at::randn({1, 1, c.heads + 2 * c.kv_heads, c.hd}, on).to(dtype);
      const at::Tensor angles = at::randn({c.capacity, c.hd}, on).mul(3);
      const at::Tensor cos = angles.cos().to(dtype), sin = angles.sin().to(dtype);
      const at::Tensor pos = at::tensor({c.position}, on.dtype(at::kLong));
      // Earlier positions hold keys and values; later ones NaN for the kernels (never read), zeros
      // for the reference, whose masked positions still meet their values with weight 0.
      const at::Tensor written = at::randn({1, c.kv_heads, c.capacity, c.hd}, on).to(dtype);
      const at::Tensor later =
          at::arange(c.capacity, on.dtype(at::kLong)).gt(c.position).view({1, 1, -1, 1});
      const at::Tensor keys = written.masked_fill(later, std::numeric_limits<float>::quiet_NaN());
      const at::Tensor values =
          at::randn_like(written).masked_fill(later, std::numeric_limits<float>::quiet_NaN());
      const auto [want, cache] = reference_step(qkv, cos, sin, pos, keys.nan_to_num(0),
                                                values.nan_to_num(0), c.heads, c.kv_heads);
      const auto got = docsift::model::fused_decode_attention(qkv, cos, sin, pos, keys, values);
      REQUIRE(got.has_value());
      CHECK(got->sizes() == want.sizes());
      // The cache row written: the same ops and roundings, bit for bit.
      CHECK(max_diff(keys.select(2, c.position), cache.first.select(2, c.position)) == 0.0);
      CHECK(max_diff(values.select(2, c.position), cache.second.select(2, c.position)) == 0.0);
      // The output: one rounding against SDPA's, whose bfloat16/float16 kernels round the
      // probabilities before P·V; float32 within 1e-5.
      const double steps = dtype == at::kFloat ? 1e-5 : 4 * step_of(dtype);
      CHECK(worst_ratio(*got, want, steps, dtype == at::kFloat ? 1e-5 : 2 * step_of(dtype)) <= 1.0);
    }
  }
}
