// Decode-time matrix-vector products with weights in the activations' own type (bfloat16, float16,
// float32): the dense path's hot loop at decode, as w8a16.h is the int8 path's. A decode step
// reads every weight once for one token, so each product is one pass over its weight matrix; the
// kernel streams it with 16-byte loads at the card's read bandwidth, where cuBLAS's GEMV reached
// 65-91 % of it on the 8B shape's layers (docs/gpu.md), and an epilogue does what LibTorch did in
// separate kernels after the matmul.
//
// Plain C++: no LibTorch or CUDA headers (as w8a16.h); the kernel is in gemv16.cu.
#pragma once

#include <cstdint>

#include "docsift/device/cuda_plugin/w8a16.h"

namespace docsift::device::cuda_plugin {

// What is done with a row's sums before they are written.
enum class GemvEpilogue {
  // y[r, j] = round(Σ_i x[r, i] · w[j, i] + bias[j]): at::linear's result, one rounding.
  kPlain,
  // SwiGLU over a stacked [2n, k] gate/up weight (gate rows 0..n−1, up rows n..2n−1; bias [2n]):
  //   g = round(Σ x · w[j] + bias[j]), u = round(Σ x · w[n + j] + bias[n + j]),
  //   y[r, j] = round(round(silu(g)) · u)
  // which is at::silu(gate).mul(up) on linear()'s halves (model::swiglu), roundings included:
  // silu computed in float32 as LibTorch's CUDA kernel does, g / (1 + exp(−g)).
  kSwiGLU,
};

// The most activation rows one call takes: a decode step has one, keys decoding's extends a few;
// a prompt's many rows are a GEMM, cuBLAS's work.
constexpr int64_t kGemv16MaxRows = 4;

// y [rows, n] `type` = the epilogue over x [rows, k] · w[n (2n for kSwiGLU), k]ᵀ, all of `type`
// (x, w, bias, y one element type), products and sums in float32, row-major contiguous.
//   bias: [n] ([2n] for kSwiGLU) or nullptr
//   y must not overlap x, w or bias
//   stream: a cudaStream_t as void* (nullptr: the legacy default stream); every pointer device
//           memory of the stream's current device
// Returns true when the kernel was launched (asynchronously), or n == 0; false, launching nothing,
// when the call is not one it takes, and the caller then uses LibTorch's matmul:
//   - rows < 1 or rows > kGemv16MaxRows, n < 0, k < 1, k % 16 != 0 (each lane reads 16 weights of a
//     row at a time, with no tail loop), n ≥ 4 · (2^31 − 1) or k / 16 ≥ 2^31 − 1 − 2048;
//   - x or w not 16-byte aligned (with k % 16 == 0 every row then is too);
//   - x, w or y nullptr.
// Throws std::runtime_error with cudaGetErrorString's text when the launch fails.
bool gemv16(ActType type, GemvEpilogue epilogue, const void* x, const void* w, const void* bias,
            void* y, int64_t rows, int64_t n, int64_t k, void* stream);

}  // namespace docsift::device::cuda_plugin
