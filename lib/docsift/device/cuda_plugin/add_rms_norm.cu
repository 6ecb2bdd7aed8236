// The fused residual add and RMSNorm (see add_rms_norm.h): one block per row.
//
// A decode row is small ([1, 3584] on the 8B shape: 7 KiB in bfloat16), so the kernel is bound by
// its latency, not by bandwidth: one launch instead of ten is the gain, and each thread's loads
// issued together. Two kernels do the same arithmetic (residual_sum, normed_value below):
//   - rows of up to 512 · 8 elements: each thread loads its ≤ 8 elements of x, update and weight
//     at once, keeps them in registers, writes s = x + update (rounded, clamped) to `sum`, and
//     after the block's reduction of Σ s² writes normed;
//   - wider rows: the threads stride over the row twice, reading back in the second pass the s each
//     wrote itself in the first (no other thread's writes are read, so no fence is needed beyond
//     the reduction's barriers).
// The element types are runtime arguments, switched per element: the switch costs nothing
// next to the launch, and one instantiation serves every combination the decoder uses (bfloat16;
// float16; float16 weights over a float32 residual stream).
//
// Needs nothing newer than sm_70: shuffles and the half/bfloat16 conversions of cuda_fp16.h and
// cuda_bf16.h (emulated for bfloat16 before sm_80). No LibTorch headers: nvcc alone compiles it.
#include "docsift/device/cuda_plugin/add_rms_norm.h"

#include "docsift/device/cuda_plugin/launch_check.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace docsift::device::cuda_plugin {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kMaxThreads = 512;

__device__ __forceinline__ float load(ActType t, const void* p, int64_t i) {
  switch (t) {
    case ActType::kFloat16:
      return __half2float(static_cast<const __half*>(p)[i]);
    case ActType::kBFloat16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}

// v rounded to nearest-even in t, read back as float32 (LibTorch's casts round the same way).
__device__ __forceinline__ float round_to(ActType t, float v) {
  switch (t) {
    case ActType::kFloat16:
      return __half2float(__float2half_rn(v));
    case ActType::kBFloat16:
      return __bfloat162float(__float2bfloat16_rn(v));
    default:
      return v;
  }
}

// Stores a value already rounded to t (round_to), so the narrowing is exact.
__device__ __forceinline__ void store(ActType t, void* p, int64_t i, float v) {
  switch (t) {
    case ActType::kFloat16:
      static_cast<__half*>(p)[i] = __float2half_rn(v);
      break;
    case ActType::kBFloat16:
      static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
      break;
    default:
      static_cast<float*>(p)[i] = v;
      break;
  }
}

// The block's total of v, returned to every thread. `shared` holds one float per warp.
__device__ float block_sum(float v, float* shared) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  const int warp = static_cast<int>(threadIdx.x) / kWarp,
            lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warps = static_cast<int>(blockDim.x) / kWarp;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = lane < warps ? shared[lane] : 0.0f;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;  // every warp reduced the same per-warp totals, so every thread holds the total
}

// The residual sum's element: x + update rounded to x's type, clamped to [−clamp, clamp] when clamp
// > 0. Comparisons, not fminf/fmaxf: LibTorch's clamp keeps a NaN, fminf would replace it.
__device__ __forceinline__ float residual_sum(ActType x_type, float x, float update, float clamp) {
  const float s = round_to(x_type, x + update);
  return clamp > 0.0f ? (s > clamp ? clamp : (s < -clamp ? -clamp : s)) : s;
}

// The normed element in `out`'s type, with LibTorch's roundings (add_rms_norm.h): s · scale
// rounded to x's type, the product with the weight to the product type and back to x's type.
__device__ __forceinline__ float normed_value(const AddRmsNormTypes& types, float s, float w,
                                              float scale) {
  const float y = round_to(types.x, s * scale);
  return round_to(types.out, round_to(types.x, round_to(types.product, w * y)));
}

// The block's 1 / sqrt(mean of squares + eps). LibTorch's mean multiplies the float32 sum by 1/n;
// the order of the sum differs, so the variance may differ from LibTorch's in its last bit.
__device__ __forceinline__ float inverse_rms(float squares, float* partial, int64_t n, float eps) {
  return rsqrtf(block_sum(squares, partial) * (1.0f / static_cast<float>(n)) + eps);
}

// Elements a thread keeps in registers between the sum of squares and the normed values, in the
// kernel for rows of up to kMaxThreads · kHeld elements (every decoder's hidden size here): each
// thread issues all its loads at once, so a row costs one memory latency, not one per element.
// Measured on H100 (2026-11-27): the looping kernel below took 7.5 µs a [1, 3,584] row, about the
// time of its 7 dependent rounds of loads per thread, twice (the sum read back for the norm).
constexpr int kHeld = 8;

__global__ void __launch_bounds__(kMaxThreads)
    add_rms_norm_held_kernel(AddRmsNormTypes types, const void* x, const void* update,
                             const void* weight, void* sum, void* normed, int64_t n, float eps,
                             float clamp) {
  __shared__ float partial[kMaxThreads / kWarp];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * n;
  const int64_t t = threadIdx.x, step = blockDim.x;
  float s[kHeld], w[kHeld];
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const int64_t i = t + j * step;
    s[j] = i < n ? load(types.x, x, base + i) : 0.0f;
    w[j] = i < n ? load(types.weight, weight, i) : 0.0f;
  }
  if (update != nullptr) {
    float u[kHeld];
#pragma unroll
    for (int j = 0; j < kHeld; ++j) {
      const int64_t i = t + j * step;
      u[j] = i < n ? load(types.update, update, base + i) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kHeld; ++j) {
      const int64_t i = t + j * step;
      const float v = residual_sum(types.x, s[j], u[j], clamp);
      if (i < n) store(types.x, sum, base + i, v);
      s[j] = i < n ? v : 0.0f;
    }
  }
  float squares = 0.0f;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) squares += s[j] * s[j];
  const float scale = inverse_rms(squares, partial, n, eps);
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const int64_t i = t + j * step;
    if (i >= n) break;
    store(types.out, normed, base + i, normed_value(types, s[j], w[j], scale));
  }
}

// Any row width: the same arithmetic, each element loaded when it is used (and the sum read back).
__global__ void __launch_bounds__(kMaxThreads)
    add_rms_norm_kernel(AddRmsNormTypes types, const void* x, const void* update,
                        const void* weight, void* sum, void* normed, int64_t n, float eps,
                        float clamp) {
  __shared__ float partial[kMaxThreads / kWarp];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * n;
  float squares = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    float s = load(types.x, x, base + i);
    if (update != nullptr) {
      s = residual_sum(types.x, s, load(types.update, update, base + i), clamp);
      store(types.x, sum, base + i, s);
    }
    squares += s * s;
  }
  const float scale = inverse_rms(squares, partial, n, eps);
  const void* source = update != nullptr ? static_cast<const void*>(sum) : x;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float s = load(types.x, source, base + i);
    store(types.out, normed, base + i,
          normed_value(types, s, load(types.weight, weight, i), scale));
  }
}

}  // namespace

bool add_rms_norm(const AddRmsNormTypes& types, const void* x, const void* update,
                  const void* weight, void* sum, void* normed, int64_t rows, int64_t n, float eps,
                  float clamp, void* stream) {
  if (n < 1 || n > kAddRmsNormMaxWidth || rows < 0 || rows > INT32_MAX) return false;
  if (x == nullptr || weight == nullptr || normed == nullptr ||
      (update != nullptr && sum == nullptr))
    return false;
  if (rows == 0) return true;
  // About four elements a thread, in whole warps: a [1, 3584] row gets 512 threads, a head's
  // [rows, 128] one warp a row.
  int threads = kWarp;
  while (threads < kMaxThreads && threads * 4 < n) threads *= 2;
  const auto grid = static_cast<unsigned>(rows), block = static_cast<unsigned>(threads);
  const auto s = static_cast<cudaStream_t>(stream);
  if (n <= int64_t{threads} * kHeld) {
    add_rms_norm_held_kernel<<<grid, block, 0, s>>>(types, x, update, weight, sum, normed, n, eps,
                                                    clamp);
  } else {
    add_rms_norm_kernel<<<grid, block, 0, s>>>(types, x, update, weight, sum, normed, n, eps,
                                               clamp);
  }
  check_launch("add_rms_norm");
  return true;
}

}  // namespace docsift::device::cuda_plugin
