// The decoder's residual add and RMSNorm in one kernel. At decode a layer's norm is nine
// elementwise LibTorch kernels on one [1, H] row (the float32 cast, pow, mean, add, rsqrt, mul,
// the cast back, the weight's mul, the cast to the matmul dtype) and the residual add one more;
// each is a launch of about 2 µs that moves a few KiB, and on the InternVL3-8B shape they were
// about 1.5 ms of a 6.1 ms step (docs/gpu.md). This kernel does the add and the norm of a row in
// one launch, with the same roundings as the LibTorch ops it replaces (model/blocks.cpp).
//
// Plain C++: no LibTorch or CUDA headers (as w8a16.h); the kernel is in add_rms_norm.cu.
#pragma once

#include <cstdint>

#include "docsift/device/cuda_plugin/w8a16.h"

namespace docsift::device::cuda_plugin {

// Each of the element types below is one of ActType's: float32, IEEE half, bfloat16. "round_T(v)"
// is v rounded to nearest-even in T (the identity for float32) and read back as float32.
struct AddRmsNormTypes {
  ActType x;        // x and sum: the residual stream
  ActType update;   // update
  ActType weight;   // weight
  ActType product;  // the type LibTorch's weight · normed has: promote(weight, x)
  ActType out;      // normed
};

// For each row r < rows of n elements (all row-major contiguous, row stride n):
//   s[i]      = round_x(x[i] + update[i]), then clamped to [−clamp, clamp] when clamp > 0 (a NaN
//               stays NaN); with update == nullptr, s = x and `sum` is not written
//   sum[i]    = s[i]                                         (when update != nullptr)
//   normed[i] = round_out(round_x(round_product(weight[i] · round_x(s[i] · rsqrt(Σ s² / n +
//   eps)))))
// which is Decoder::residual_add followed by as_dtype(rms_norm(·, weight, eps), out).
//   x, update [rows, n]; weight [n]; sum [rows, n] of type x, may be x itself (in place), must
//   not overlap update, weight or normed; normed [rows, n] of type out, must not overlap any other.
//   stream: a cudaStream_t as void* (nullptr: the legacy default stream); every pointer device
//   memory of the stream's current device.
// Returns true when the kernel was launched (asynchronously) or rows == 0; false, launching
// nothing, when the call is not one it takes (n < 1 or n > kAddRmsNormMaxWidth, rows < 0 or
// ≥ 2^31, x, weight or normed nullptr, sum nullptr while update is not), and the caller then
// uses its LibTorch ops. Throws std::runtime_error with cudaGetErrorString's text when the
// launch fails.
constexpr int64_t kAddRmsNormMaxWidth = int64_t{1} << 20;
bool add_rms_norm(const AddRmsNormTypes& types, const void* x, const void* update,
                  const void* weight, void* sum, void* normed, int64_t rows, int64_t n, float eps,
                  float clamp, void* stream);

}  // namespace docsift::device::cuda_plugin
