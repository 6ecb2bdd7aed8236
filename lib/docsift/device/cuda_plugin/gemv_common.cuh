// What the decode GEMV kernels (w8a16_gemv.cu: int8 weights; gemv16.cu: 16/32-bit weights) share:
// the warp reduction of their partial sums, the streaming weight load, and the choice of how many
// warps split one output group's k. Device code for nvcc only; included by the .cu files alone.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace docsift::device::cuda_plugin::gemv {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;
constexpr int kThreads = kWarp * kWarpsPerBlock;
// The most warps that split one output group's k (the block's warp count), as log2.
constexpr int kMaxSplitLog2 = 3;

__host__ __device__ constexpr int next_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// --- element types -------------------------------------------------------------------------------
// Storage: the element as memory holds it (half and bfloat16 as their 16 bits, so no operator or
// constructor of the CUDA types is needed). kLoads: 16-byte loads for 16 elements. chunk():
// elements 4j..4j+3 of the 16 held in `raw`, as float. load(): one element as float; from_float():
// rounded to nearest-even into Storage; round(): that rounding read back as float (the identity for
// float32); to_float(): an element already loaded (load() reads through the read-only cache, which
// memory the same kernel writes must not use).

struct ActF32 {
  using Storage = float;
  static constexpr int kLoads = 4;
  __device__ static __forceinline__ void chunk(const uint4 (&raw)[kLoads], int j, float (&f)[4]) {
    f[0] = __uint_as_float(raw[j].x);
    f[1] = __uint_as_float(raw[j].y);
    f[2] = __uint_as_float(raw[j].z);
    f[3] = __uint_as_float(raw[j].w);
  }
  __device__ static __forceinline__ float load(const Storage* p) { return __ldg(p); }
  __device__ static __forceinline__ Storage from_float(float v) { return v; }
  __device__ static __forceinline__ float round(float v) { return v; }
  __device__ static __forceinline__ float to_float(Storage s) { return s; }
};

struct ActF16 {
  using Storage = unsigned short;
  static constexpr int kLoads = 2;
  __device__ static __forceinline__ float widen(unsigned bits) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  }
  __device__ static __forceinline__ void chunk(const uint4 (&raw)[kLoads], int j, float (&f)[4]) {
    const uint4& q = raw[j / 2];
    const unsigned a = (j % 2) ? q.z : q.x;
    const unsigned b = (j % 2) ? q.w : q.y;
    f[0] = widen(a & 0xffffu);
    f[1] = widen(a >> 16);
    f[2] = widen(b & 0xffffu);
    f[3] = widen(b >> 16);
  }
  __device__ static __forceinline__ float load(const Storage* p) { return widen(__ldg(p)); }
  __device__ static __forceinline__ Storage from_float(float v) {
    return __half_as_ushort(__float2half_rn(v));
  }
  __device__ static __forceinline__ float round(float v) { return widen(from_float(v)); }
  __device__ static __forceinline__ float to_float(Storage s) { return widen(s); }
};

struct ActBF16 {
  using Storage = unsigned short;
  static constexpr int kLoads = 2;
  // bfloat16 is the top half of a float32: widening is a shift, exact, and needs no sm_80
  // instruction.
  __device__ static __forceinline__ void chunk(const uint4 (&raw)[kLoads], int j, float (&f)[4]) {
    const uint4& q = raw[j / 2];
    const unsigned a = (j % 2) ? q.z : q.x;
    const unsigned b = (j % 2) ? q.w : q.y;
    f[0] = __uint_as_float(a << 16);
    f[1] = __uint_as_float(a & 0xffff0000u);
    f[2] = __uint_as_float(b << 16);
    f[3] = __uint_as_float(b & 0xffff0000u);
  }
  __device__ static __forceinline__ float load(const Storage* p) {
    return __uint_as_float(static_cast<unsigned>(__ldg(p)) << 16);
  }
  __device__ static __forceinline__ Storage from_float(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
  __device__ static __forceinline__ float round(float v) {
    return __uint_as_float(unsigned{from_float(v)} << 16);
  }
  __device__ static __forceinline__ float to_float(Storage s) {
    return __uint_as_float(unsigned{s} << 16);
  }
};

// 16 bytes of weights, one read-only load that does not allocate in L1: each weight byte is used
// once per token, and L1 is better spent on the activations. `p` is 16-byte aligned global memory.
__device__ __forceinline__ uint4 load_streaming(const void* p) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}

// Reduce-scatter butterfly over the warp for kCount values per lane (a power of two ≤ 32): at each
// step a lane keeps half of its values and sends the other half to its partner, so the step costs
// half as many shuffles as values; once one value is left the rest is a plain xor reduction. On
// return v[0] of lane L is the warp's sum of value index L >> (5 - log2 kCount).
template <int kCount, int kOffset, int kSize>
__device__ __forceinline__ void reduce_scatter(float (&v)[kSize], int lane) {
  if constexpr (kOffset > 0) {
    if constexpr (kCount > 1) {
      constexpr int kHalf = kCount / 2;
      const bool upper = (lane & kOffset) != 0;
#pragma unroll
      for (int i = 0; i < kHalf; ++i) {
        const float send = upper ? v[i] : v[i + kHalf];
        const float keep = upper ? v[i + kHalf] : v[i];
        v[i] = keep + __shfl_xor_sync(kFullMask, send, kOffset);
      }
      reduce_scatter<kHalf, kOffset / 2>(v, lane);
    } else {
      v[0] += __shfl_xor_sync(kFullMask, v[0], kOffset);
      reduce_scatter<1, kOffset / 2>(v, lane);
    }
  }
}

// Where a thread of the GEMV grid works: block b's warp w owns output group
// (b · groups_per_block + w >> split_log2), outputs out0 .. out0 + kOutsPerGroup − 1, and reads
// k-slice w & (split − 1) of them; split = 2^split_log2 warps share a group.
struct WarpTile {
  int lane, warp, split, groups_per_block, slice;
  int64_t out0;
};
template <int kOutsPerGroup>
__device__ __forceinline__ WarpTile warp_tile(int split_log2) {
  WarpTile w;
  w.lane = static_cast<int>(threadIdx.x) % kWarp;
  w.warp = static_cast<int>(threadIdx.x) / kWarp;
  w.split = 1 << split_log2;
  w.groups_per_block = kWarpsPerBlock >> split_log2;
  w.slice = w.warp & (w.split - 1);
  w.out0 = (int64_t(blockIdx.x) * w.groups_per_block + (w.warp >> split_log2)) * kOutsPerGroup;
  return w;
}

// The 16 activations of each of the kRows rows of x (row r starts r·k elements in) at column col,
// 16-byte loads through the read-only cache: x is small and every warp of the grid reads it.
template <typename A, int kRows>
__device__ __forceinline__ void load_x_slice(const typename A::Storage* __restrict__ x, int64_t k,
                                             int64_t col, uint4 (&xq)[kRows][A::kLoads]) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const uint4* xp = reinterpret_cast<const uint4*>(x + r * k + col);
#pragma unroll
    for (int l = 0; l < A::kLoads; ++l) xq[r][l] = __ldg(xp + l);
  }
}

// The warp's partial sums acc[kRows][kCols] (value r·kCols + c) summed over its lanes into
// partial[warp][r·kCols + c], then the block synchronised: every warp's sums are in shared memory.
template <int kRows, int kCols, int kPadded>
__device__ __forceinline__ void warp_sums_to_shared(const float (&acc)[kRows][kCols],
                                                    float (&partial)[kWarpsPerBlock][kPadded],
                                                    int lane, int warp) {
  constexpr int kValues = kRows * kCols;
  static_assert(kPadded == next_pow2(kValues) && kPadded <= kWarp,
                "one value per lane at most after the reduce-scatter");
  float vals[kPadded];
#pragma unroll
  for (int i = 0; i < kPadded; ++i) vals[i] = i < kValues ? acc[i / kCols][i % kCols] : 0.f;
  reduce_scatter<kPadded, kWarp / 2>(vals, lane);
  constexpr int kLanesPerValue = kWarp / kPadded;
  if (lane % kLanesPerValue == 0) partial[warp][lane / kLanesPerValue] = vals[0];
  __syncthreads();
}

// The epilogue's thread: one per (activation row, output) of the block, consecutive threads on
// consecutive outputs of a row. `first_warp`: the first of the `split` warps that summed the
// output's group (their sums at partial[first_warp + s]). False for the threads past the block's
// outputs or past n.
struct OutputSlot {
  int row = 0, out_in_block = 0, first_warp = 0;
  int64_t out = 0;
};
template <int kRows, int kOutsPerGroup>
__device__ __forceinline__ bool output_slot(int groups_per_block, int split_log2, int64_t n,
                                            OutputSlot& slot) {
  const int outs_per_block = groups_per_block * kOutsPerGroup;
  const int t = static_cast<int>(threadIdx.x);
  if (t >= kRows * outs_per_block) return false;
  slot.row = t / outs_per_block;
  slot.out_in_block = t % outs_per_block;
  slot.out = int64_t(blockIdx.x) * outs_per_block + slot.out_in_block;
  slot.first_warp = (slot.out_in_block / kOutsPerGroup) << split_log2;
  return slot.out < n;
}

// How many warps share one output group's k (log2). A warp's time is about its vectors per lane
// plus a fixed part (the reduction, the epilogue, the load latency it cannot hide), and warps run
// in waves of warp_slots (SMs × resident warps per SM): cost(split) = waves · (vectors per lane +
// 1), the smallest cost wins, a tie goes to the larger split (more SMs busy when the grid is
// small). Splitting helps short, wide matrices least and small or long ones most. On H100 (132 SMs)
// this picked within 2% of the best split on average over 20 LLM shapes × 1/2/4/8 rows for the int8
// kernel (worst case 18%, on a 7 µs shape), where a fixed split 1 averaged 24% slower.
inline int split_log2_for(int64_t groups, int64_t vectors, int64_t warp_slots) {
  int best = 0;
  int64_t best_cost = INT64_MAX;
  for (int split_log2 = 0; split_log2 <= kMaxSplitLog2; ++split_log2) {
    const int64_t waves = ((groups << split_log2) + warp_slots - 1) / warp_slots;
    const int64_t per_lane =
        (vectors + (int64_t{kWarp} << split_log2) - 1) / (int64_t{kWarp} << split_log2);
    const int64_t cost = waves * (per_lane + 1);
    if (cost <= best_cost) {
      best_cost = cost;
      best = split_log2;
    }
  }
  return best;
}

// The current device's SM count. The split only needs it roughly, so a failed query falls back to
// a mid-range GPU's; an error it leaves pending is reported by the launch check that follows.
inline int multiprocessors() {
  int device = 0;
  int sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms < 1) {
    return 80;
  }
  return sms;
}

// Resident blocks per SM of `kernel` at kThreads threads (its register count decides), or 2, which
// every kernel here guarantees with __launch_bounds__(kThreads, 2).
template <typename Kernel>
int blocks_per_sm(Kernel kernel) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess ||
      blocks < 1) {
    return 2;
  }
  return blocks;
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace docsift::device::cuda_plugin::gemv
