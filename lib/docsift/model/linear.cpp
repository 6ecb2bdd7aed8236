#include "docsift/model/linear.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones.h>

#if __has_include(<ATen/ops/_weight_int8pack_mm.h>)
#include <ATen/ops/_weight_int8pack_mm.h>
#define DOCSIFT_HAS_INT8PACK_MM 1
#else
#define DOCSIFT_HAS_INT8PACK_MM 0
#endif

#include <algorithm>
#include <optional>

#include "docsift/device/cuda_backend.h"
#include "docsift/device/cuda_plugin/w8a16.h"
#include "docsift/error.h"

namespace docsift::model {
namespace {

constexpr int64_t kInt8PackMaxRows = 8;
// Rows up to which a float32 CPU matmul runs as W · xᵀ (see few_rows_cpu).
constexpr int64_t kFewRowsMax = 16;

// A few rows on the CPU (an extend of keys decoding: 2 to 16 tokens). at::linear sends x · Wᵀ to a
// GEMM path that, for 2 to 16 rows, took 2 to 3 times one row's time on this project's 2-core
// machine (24 layers of a 0.5B decoder's shapes, hidden 896, float32: 1 row 98 ms, 2 rows 195, 3
// rows 279, 8 rows 191), while W · xᵀ, the same product with the weight as the left operand, took
// 48, 65 and 142 ms (bench/decoding/README.md). Same values up to float32 summation order.
at::Tensor few_rows_cpu(const at::Tensor& x2d, const at::Tensor& weight, const at::Tensor& bias) {
  at::Tensor y = at::mm(weight, x2d.t()).t();  // [out, rows]ᵀ → [rows, out]
  if (bias.defined()) y = y.add(bias);
  return y.contiguous();
}

std::optional<at::Tensor> optional(const at::Tensor& t) {
  return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt;
}

// w's bias as the kernels read it: contiguous, in the activations' dtype; undefined without one.
at::Tensor bias_in(const LinearWeight& w, at::ScalarType dtype) {
  return w.bias.defined() ? w.bias.to(dtype).contiguous() : at::Tensor();
}

// x2d [rows, in] contiguous → [rows, out], or undefined when the kernel does not take the shape.
at::Tensor fused_cuda(const at::Tensor& x2d, const LinearWeight& w) {
  // The CUDA plugin's kernel, when it has one: a CUDA tensor means the plugin is loaded.
  const device::CudaBackend* cuda = device::loaded_kernels();
  const auto type = device::kernel_type(x2d.scalar_type());
  if (!cuda || !type || x2d.size(0) > device::cuda_plugin::kW8A16MaxRows) return {};
  const at::Tensor bias = bias_in(w, x2d.scalar_type());
  at::Tensor y = at::empty({x2d.size(0), w.out_features()}, x2d.options());
  const bool launched = cuda->w8a16_gemv(
      *type, x2d.const_data_ptr(), w.weight.const_data_ptr<int8_t>(),
      w.scale.const_data_ptr<float>(), bias.defined() ? bias.const_data_ptr() : nullptr,
      y.mutable_data_ptr(), x2d.size(0), w.out_features(), w.in_features(), x2d.device());
  return launched ? y : at::Tensor();
}

// The GEMV for dense weights (linear.h); `swiglu`: the gate/up form, half as many outputs as rows.
at::Tensor gemv16(const at::Tensor& x, const LinearWeight& w, bool swiglu) {
  if (!x.is_cuda() || w.quantized() || !w.defined() || w.weight.scalar_type() != x.scalar_type() ||
      !w.weight.is_contiguous() || w.weight.device() != x.device() || x.dim() < 1 ||
      x.size(-1) != w.in_features()) {
    return {};
  }
  const int64_t rows = x.numel() / std::max<int64_t>(1, x.size(-1));
  const device::CudaBackend* cuda = device::loaded_kernels();
  const auto type = device::kernel_type(x.scalar_type());
  if (!cuda || !type || rows < 1 || rows > device::cuda_plugin::kGemv16MaxRows) return {};
  if (swiglu && w.out_features() % 2 != 0) return {};
  const at::Tensor x2d = x.reshape({rows, w.in_features()}).contiguous();
  const at::Tensor bias = bias_in(w, x.scalar_type());
  const int64_t n = swiglu ? w.out_features() / 2 : w.out_features();
  auto out_shape = x.sizes().vec();
  out_shape.back() = n;
  at::Tensor y = at::empty(out_shape, x.options());
  using device::cuda_plugin::GemvEpilogue;
  const bool launched = cuda->gemv16(*type, swiglu ? GemvEpilogue::kSwiGLU : GemvEpilogue::kPlain,
                                     x2d.const_data_ptr(), w.weight.const_data_ptr(),
                                     bias.defined() ? bias.const_data_ptr() : nullptr,
                                     y.mutable_data_ptr(), rows, n, w.in_features(), x.device());
  return launched ? y : at::Tensor();
}

#if DOCSIFT_HAS_INT8PACK_MM
// LibTorch's CPU int8 kernel is fast only with bfloat16 activations (measured on this project's
// CI machine, [1, 896] × [4864, 896]ᵀ: 0.15 ms against 0.87 ms for the float32 matmul, while with
// float32 activations it takes 2.4 ms). So the activations go in as bfloat16; the kernel
// accumulates in float32, and the per-channel scale is applied afterwards in float32 (passing it
// to the op would round it to bfloat16, a systematic error per output row).
at::Tensor int8pack_mm(const at::Tensor& x2d, const LinearWeight& w) {
  const at::Tensor ones = at::ones({w.out_features()}, x2d.options().dtype(at::kBFloat16));
  at::Tensor y =
      at::_weight_int8pack_mm(x2d.to(at::kBFloat16), w.weight, ones).to(at::kFloat).mul_(w.scale);
  if (w.bias.defined()) y.add_(w.bias);
  return y.to(x2d.scalar_type());
}
#endif

at::Tensor dequantize_blocks(const at::Tensor& x2d, const LinearWeight& w,
                             const DequantScratch* scratch) {
  const int64_t out = w.out_features(), in = w.in_features();
  // Without a scratch buffer (tests, a model built without one) dequantize the whole layer once.
  if (scratch == nullptr || scratch->capacity() < in) {
    return at::linear(x2d, w.dense(x2d.scalar_type()), optional(w.bias));
  }
  const int64_t block = std::min(out, scratch->capacity() / in);
  if (block == out) {
    at::Tensor dense = scratch->matrix(out, in);
    at::mul_out(dense, w.weight,
                w.scale.unsqueeze(1));  // int8 · float32 scale, written in x's dtype
    return at::linear(x2d, dense, optional(w.bias));
  }
  // A layer larger than the scratch (a CPU lm_head without _weight_int8pack_mm): output columns
  // block by block, [rows, block] each, into one result.
  at::Tensor y = at::empty({x2d.size(0), out}, x2d.options());
  for (int64_t r = 0; r < out; r += block) {
    const int64_t n = std::min(block, out - r);
    at::Tensor dense = scratch->matrix(n, in);
    at::mul_out(dense, w.weight.slice(0, r, r + n), w.scale.slice(0, r, r + n).unsqueeze(1));
    y.slice(1, r, r + n)
        .copy_(at::linear(x2d, dense,
                          w.bias.defined() ? optional(w.bias.slice(0, r, r + n)) : std::nullopt));
  }
  return y;
}

}  // namespace

std::size_t LinearWeight::nbytes() const {
  std::size_t n = 0;
  for (const at::Tensor* t : {&weight, &scale, &bias}) n += t->defined() ? t->nbytes() : 0;
  return n;
}

at::Tensor LinearWeight::dense(at::ScalarType dtype) const {
  if (!quantized()) return weight.to(dtype);
  return weight.to(at::kFloat).mul(scale.unsqueeze(1)).to(dtype);
}

LinearWeight stack_outputs(const std::vector<LinearWeight>& parts) {
  if (parts.empty() ||
      std::any_of(parts.begin(), parts.end(), [](const LinearWeight& p) { return !p.defined(); })) {
    return {};
  }
  const LinearWeight& first = parts.front();
  std::vector<at::Tensor> weights, scales, biases;
  for (const LinearWeight& p : parts) {
    if (p.in_features() != first.in_features() ||
        p.weight.scalar_type() != first.weight.scalar_type() ||
        p.quantized() != first.quantized() || p.bias.defined() != first.bias.defined()) {
      throw Error("stack_outputs: the layers differ in input size, dtype, quantization or bias");
    }
    weights.push_back(p.weight);
    if (p.quantized()) scales.push_back(p.scale);
    if (p.bias.defined()) biases.push_back(p.bias);
  }
  LinearWeight out;
  out.weight = at::cat(weights, 0);
  if (!scales.empty()) out.scale = at::cat(scales, 0);
  if (!biases.empty()) out.bias = at::cat(biases, 0);
  return out;
}

LinearWeight quantize_int8(const at::Tensor& weight, at::Device device, int64_t block_rows) {
  if (weight.dim() != 2 || !at::isFloatingType(weight.scalar_type())) {
    throw Error("quantize_int8: expected a floating-point [out, in] weight");
  }
  const int64_t out = weight.size(0), in = weight.size(1);
  LinearWeight q;
  q.weight = at::empty({out, in}, at::TensorOptions().dtype(at::kChar).device(device));
  q.scale = at::empty({out}, at::TensorOptions().dtype(at::kFloat).device(device));
  block_rows = std::max<int64_t>(1, block_rows);
  for (int64_t r = 0; r < out; r += block_rows) {
    const int64_t n = std::min(block_rows, out - r);
    // [n, in] in float32 on the target device: the stored dtype travels, the conversion happens
    // there.
    const at::Tensor rows = weight.slice(0, r, r + n).to(device).to(at::kFloat);
    at::Tensor scale = rows.abs().amax(1).div(127.0);  // [n]
    scale.masked_fill_(scale.eq(0), 1.0);              // an all-zero row stays zero
    q.weight.slice(0, r, r + n).copy_(rows.div(scale.unsqueeze(1)).round().clamp(-127, 127));
    q.scale.slice(0, r, r + n).copy_(scale);
  }
  return q;
}

DequantScratch::DequantScratch(int64_t capacity, at::ScalarType dtype, at::Device device)
    : capacity_(capacity) {
  buffer_ = at::empty({capacity}, at::TensorOptions().dtype(dtype).device(device));
}

at::Tensor DequantScratch::matrix(int64_t rows, int64_t cols) const {
  if (rows * cols > capacity_) throw Error("dequantize scratch: a block larger than its capacity");
  return buffer_.slice(0, 0, rows * cols).view({rows, cols});
}

std::string to_string(Int8Path path) {
  switch (path) {
    case Int8Path::kDense:
      return "dense";
    case Int8Path::kFusedCuda:
      return "fused_cuda";
    case Int8Path::kInt8PackMM:
      return "int8pack_mm";
    case Int8Path::kDequantize:
      return "dequantize";
  }
  return "?";
}

at::Tensor fused_gemv(const at::Tensor& x, const LinearWeight& w) {
  return gemv16(x, w, /*swiglu=*/false);
}
at::Tensor fused_swiglu_gemv(const at::Tensor& x, const LinearWeight& gate_up) {
  return gemv16(x, gate_up, /*swiglu=*/true);
}

bool cuda_kernels_compiled() {
  std::string why;
  const device::CudaBackend* cuda = device::load_cuda_backend(&why);
  return cuda && cuda->has_kernels();
}

Int8Path int8_path(const at::Tensor& x, const LinearWeight& w) {
  if (!w.quantized()) return Int8Path::kDense;
  const int64_t rows = x.numel() / std::max<int64_t>(1, x.size(-1));
  if (x.is_cuda()) {
    return device::loaded_kernels() && rows <= device::cuda_plugin::kW8A16MaxRows
               ? Int8Path::kFusedCuda
               : Int8Path::kDequantize;
  }
  // The CPU int8 kernel pays off for a few rows (decode); a prompt's many rows go through the
  // BLAS matmul on dequantized blocks instead (17× faster at 64 rows, measured as above).
  const bool few_rows = rows <= kInt8PackMaxRows;
  return DOCSIFT_HAS_INT8PACK_MM && x.is_cpu() && few_rows ? Int8Path::kInt8PackMM
                                                           : Int8Path::kDequantize;
}

at::Tensor linear_via(Int8Path path, const at::Tensor& x, const LinearWeight& w,
                      const DequantScratch* scratch) {
  if (!w.quantized() || path == Int8Path::kDense) {
    const at::Tensor weight = w.quantized() ? w.dense(x.scalar_type()) : w.weight;
    const int64_t rows = x.numel() / std::max<int64_t>(1, x.size(-1));
    if (x.is_cpu() && x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
        rows >= 2 && rows <= kFewRowsMax) {
      auto out_shape = x.sizes().vec();
      out_shape.back() = weight.size(0);
      return few_rows_cpu(x.reshape({rows, x.size(-1)}), weight, w.bias).view(out_shape);
    }
    return at::linear(x, weight, optional(w.bias));
  }
  const int64_t in = w.in_features();
  const at::Tensor x2d = x.reshape({-1, in}).contiguous();
  auto out_shape = x.sizes().vec();
  out_shape.back() = w.out_features();
  at::Tensor y;
  switch (path) {
    case Int8Path::kFusedCuda:
      if (x.is_cuda()) y = fused_cuda(x2d, w);
      break;
    case Int8Path::kInt8PackMM:
#if DOCSIFT_HAS_INT8PACK_MM
      if (x.is_cpu()) y = int8pack_mm(x2d, w);
#endif
      break;
    default:
      break;
  }
  if (!y.defined()) y = dequantize_blocks(x2d, w, scratch);  // the portable path takes every shape
  return y.view(out_shape);
}

at::Tensor linear(const at::Tensor& x, const LinearWeight& w, const DequantScratch* scratch) {
  return linear_via(int8_path(x, w), x, w, scratch);
}

}  // namespace docsift::model
