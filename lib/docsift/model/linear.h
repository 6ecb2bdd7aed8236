// Linear layers whose weight is either dense in the compute dtype or int8 with one float32 scale
// per output channel (symmetric absmax, weight-only: activations stay in the compute dtype, W8A16).
//
// int8 matmuls take one of three paths, chosen per call:
//   - CUDA, up to device::cuda_plugin::kW8A16MaxRows activation rows (decode): the fused W8A16
//   kernel in
//     lib/docsift/device/cuda_plugin/, which reads each int8 weight once and never materialises a
//     float copy;
//   - CPU, up to 8 rows (decode): at::_weight_int8pack_mm where this LibTorch has it (2.3 and
//     newer), fed bfloat16 activations, the only input its fast kernel takes (see linear.cpp);
//   - otherwise (prefill on the GPU, a LibTorch without the op): dequantize a block of rows into a
//     reused scratch buffer right before its matmul (cuBLAS / the CPU BLAS), block by block, so the
//     scratch never exceeds its fixed capacity whatever the layer's size.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace docsift::model {

struct LinearWeight {
  at::Tensor weight;  // [out, in]: the compute dtype, or int8 when `scale` is defined
  at::Tensor scale;   // [out] float32: weight_fp ≈ weight_int8 · scale (int8 only)
  at::Tensor bias;    // [out] in the compute dtype, or undefined

  bool defined() const { return weight.defined(); }
  bool quantized() const { return scale.defined(); }
  int64_t out_features() const { return weight.size(0); }
  int64_t in_features() const { return weight.size(1); }
  std::size_t nbytes() const;
  // The weight in `dtype` (dequantized when int8): for tests and the reference path.
  at::Tensor dense(at::ScalarType dtype) const;
};

// Symmetric per-row absmax int8 of `weight` [out, in] (any floating dtype, any device), computed in
// float32 on `device` `block_rows` rows at a time, so a huge tensor (lm_head) never exists there in
// float32 at once. Rows that are all zero get scale 1. Returns int8 [out, in] and float32 [out].
LinearWeight quantize_int8(const at::Tensor& weight, at::Device device, int64_t block_rows = 4096);

// Linear layers that read the same input, as one: their weights (and int8 scales, biases) stacked
// along the outputs, [out₁ + out₂ + …, in], so one matmul replaces several per step; the caller
// splits the result's last dimension in the same order. Done once at load. Undefined when a part
// is (a missing weight, which the loader reports). Throws when the parts disagree in input size,
// kind (dense/int8, dtype) or bias.
LinearWeight stack_outputs(const std::vector<LinearWeight>& parts);

// A reused buffer for the dequantize path, in the compute dtype on the model's device. One per
// model; `capacity` elements are allocated at construction (the largest decoder projection), so the
// memory plan can count it and no allocation happens per layer.
class DequantScratch {
 public:
  DequantScratch() = default;
  DequantScratch(int64_t capacity, at::ScalarType dtype, at::Device device);
  int64_t capacity() const { return capacity_; }
  std::size_t nbytes() const { return buffer_.defined() ? buffer_.nbytes() : 0; }
  // The first rows·cols elements as a [rows, cols] matrix; rows·cols ≤ capacity.
  at::Tensor matrix(int64_t rows, int64_t cols) const;

 private:
  at::Tensor buffer_;
  int64_t capacity_ = 0;
};

// Which path linear() takes for `x` (exposed for tests and benchmarks).
enum class Int8Path { kDense, kFusedCuda, kInt8PackMM, kDequantize };
std::string to_string(Int8Path path);
Int8Path int8_path(const at::Tensor& x, const LinearWeight& w);
// Whether this build has docsift's own CUDA kernels, the fused int8 GEMV and the fused norm (in
// the CUDA plugin, which this loads).
bool cuda_kernels_compiled();

// Dense weights in x's dtype (float32, float16, bfloat16) and 1..4 rows of x on a CUDA device:
// docsift's GEMV (device/cuda_plugin/gemv16.h), x [..., in] → [..., out] as at::linear gives it,
// bias included. fused_swiglu_gemv: x [..., H] through SwiGLU's stacked gate/up weight [2·I, H]
// → silu(gate) · up [..., I], model::swiglu's first half with its roundings, in one kernel.
// Undefined, having done nothing, where the kernel does not take the call (the CPU, int8
// weights, more rows, a plugin without kernels, a shape it refuses).
at::Tensor fused_gemv(const at::Tensor& x, const LinearWeight& w);
at::Tensor fused_swiglu_gemv(const at::Tensor& x, const LinearWeight& gate_up);

// x [..., in] → [..., out] in x's dtype. `scratch` is needed only for the dequantize path.
at::Tensor linear(const at::Tensor& x, const LinearWeight& w,
                  const DequantScratch* scratch = nullptr);
// The same through a forced path (tests compare every path with a float32 reference).
at::Tensor linear_via(Int8Path path, const at::Tensor& x, const LinearWeight& w,
                      const DequantScratch* scratch);

}  // namespace docsift::model
