// Decode-time matrix-vector product with int8 weights and 16/32-bit activations (W8A16): the
// weight-only int8 path's hot loop. At decode a linear layer sees 1..8 activation rows, so the
// work is one pass over the int8 weight matrix; this kernel reads each weight byte once, with
// 16-byte loads, and is bound by memory bandwidth on the weights, not by arithmetic.
//
// Plain C++: no LibTorch or CUDA headers, so the model code can include it anywhere. The kernel
// lives in w8a16_gemv.cu, compiled by nvcc alone.
#pragma once

#include <cstdint>

namespace docsift::device::cuda_plugin {

// The activation (x, y, bias) element type: float, IEEE half, bfloat16.
enum class ActType { kFloat32, kFloat16, kBFloat16 };

// The most activation rows one call takes; above it the caller's portable path (a real GEMM) is
// the better tool anyway.
constexpr int64_t kW8A16MaxRows = 8;

// y[m, j] = (Σ_i x[m, i] · w[j, i]) · scale[j] (+ bias[j]) for m < rows, j < n, i < k; products and
// sums in float32, the result rounded once to `type`.
//   x     [rows, k] `type`, row-major contiguous (row stride k)
//   w     [n, k] int8, row-major contiguous (row stride k): per-output-channel symmetric int8
//   scale [n] float32
//   bias  [n] `type`, or nullptr
//   y     [rows, n] `type`, row-major contiguous; must not overlap x, w, scale or bias
//   stream: a cudaStream_t passed as void* (nullptr: the legacy default stream); every pointer
//           must be device memory of the stream's current device
// Returns true when the kernel was launched (asynchronously on `stream`), or when n == 0 and
// there is nothing to do. Returns false, launching nothing, when the call is not one this kernel
// takes, and the caller then uses its portable path:
//   - rows < 1 or rows > kW8A16MaxRows, n < 0, k < 0, n ≥ 4 · (2^31 − 1) or k / 16 > 2^31 − 1 −
//   512;
//   - k % 16 != 0: each lane reads 16 weights (16 bytes) at a time, with no tail loop;
//   - x or w not 16-byte aligned (the address of element 0): with k % 16 == 0 every row of w
//     (k bytes) and of x (2k or 4k bytes) then starts 16-byte aligned too, which the vector loads
//     need. scale, bias and y are read and written one element at a time and need only the
//     natural alignment of their type;
//   - x, w, scale or y is nullptr.
// k == 0 is taken: y = bias, or 0 without one.
// Throws std::runtime_error, with cudaGetErrorString's text, when the launch fails (this includes
// an earlier asynchronous error still pending on the thread, as any launch check does).
bool w8a16_gemv(ActType type, const void* x, const int8_t* w, const float* scale, const void* bias,
                void* y, int64_t rows, int64_t n, int64_t k, void* stream);

}  // namespace docsift::device::cuda_plugin
