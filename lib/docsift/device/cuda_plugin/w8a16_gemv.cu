// The W8A16 decode GEMV (see w8a16.h): y[rows, n] = x[rows, k] · w[n, k]ᵀ · diag(scale) (+ bias),
// int8 weights, float32 accumulation, 1..8 activation rows.
//
// At decode the weights are read once per token and everything else is tiny, so the kernel is
// built around streaming w at full memory bandwidth:
//   - a warp owns kOutsPerWarp (4) consecutive output channels; each lane reads 16 int8 weights of
//     each of them with one 16-byte load, two vectors at a time (one at many rows, see
//     unroll_for), so up to 8 loads are in flight per lane before the first one is used;
//   - the warp's 32 lanes read 32 consecutive 16-byte vectors of each weight row (512 bytes), and
//     the `split` warps that share those outputs interleave their slices of k, so one block step
//     reads split × 512 contiguous bytes of each row;
//   - the 16 matching activations of each row of x are loaded with 16-byte loads too; x is small
//     (rows × k elements), shared by every warp and served from L1/L2, while the weights are
//     loaded with ld.global.nc.L1::no_allocate so that they stream past L1 and leave x there;
//   - one x load serves 4 outputs and one weight conversion serves every row: int8 → float takes
//     two instructions per weight (see int8x4_to_float), paid once for all rows.
// On H100 (3.35 TB/s HBM3) large matrices stream at about 3.0 TB/s with 1 row, 2.8 with 2 and
// 2.6 with 4; at 8 rows the FMAs and conversions, not DRAM, set the pace (about 1.7 TB/s).
// The partial sums of a warp (rows × 4 values per lane) are reduced with a reduce-scatter
// butterfly (31 shuffles for 32 values instead of 160), the `split` warps of each output group
// are summed through shared memory, and one thread per output applies scale and bias and writes
// y with a single rounding to the activation type.
//
// Needs nothing newer than sm_70 (Volta): shuffles, __byte_perm, 16-byte loads, half/bfloat16
// conversions that cuda_fp16.h/cuda_bf16.h provide for every architecture (bfloat16 inputs are
// widened with a shift, outputs rounded by __float2bfloat16_rn, emulated before sm_80), and the
// L1::no_allocate cache hint (PTX ISA 7.4, sm_70+). No LibTorch headers: nvcc alone compiles it.
#include "docsift/device/cuda_plugin/w8a16.h"

#include "docsift/device/cuda_plugin/gemv_common.cuh"
#include "docsift/device/cuda_plugin/launch_check.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace docsift::device::cuda_plugin {
namespace {

using namespace gemv;  // kWarp, kThreads, reduce_scatter, split_log2_for, ...

// Output channels per warp: each x load is reused for this many weight rows.
constexpr int kOutsPerWarp = 4;
// 16-byte weight vectors per lane per output issued before any is consumed (see unroll_for below).
constexpr int kMaxUnroll = 2;

// --- weights -------------------------------------------------------------------------------------

// 16 int8 weights, streamed past L1 (gemv_common.cuh).
__device__ __forceinline__ uint4 load_weights(const int8_t* p) { return load_streaming(p); }

__device__ __forceinline__ unsigned word(const uint4& q, int j) {
  return j == 0 ? q.x : j == 1 ? q.y : j == 2 ? q.z : q.w;
}

// Four int8 (one 32-bit word, byte i = weight i) to float without the quarter-rate I2F: flipping
// the sign bit makes each byte b + 128 in 0..255; placed in the mantissa of 2^23 (0x4B000000) by
// one byte permute it reads 2^23 + b + 128, and one subtraction leaves b. Both steps are exact.
__device__ __forceinline__ void int8x4_to_float(unsigned packed, float (&f)[4]) {
  const unsigned biased = packed ^ 0x80808080u;
  constexpr float kBias = 8388608.f + 128.f;
  f[0] = __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7440)) - kBias;
  f[1] = __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7441)) - kBias;
  f[2] = __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7442)) - kBias;
  f[3] = __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7443)) - kBias;
}

// --- the k loop ----------------------------------------------------------------------------------

// Adds the products of kVectors 16-element slices, at vector indices v, v + stride, ..., to acc.
// x points at row 0 (row r starts r·k elements later); wrow[g] at the weight row of output g.
template <typename A, int kRows, int kVectors>
__device__ __forceinline__ void accumulate(const typename A::Storage* __restrict__ x, int64_t k,
                                           const int8_t* const (&wrow)[kOutsPerWarp], int v,
                                           int stride, float (&acc)[kRows][kOutsPerWarp]) {
  uint4 wq[kVectors][kOutsPerWarp];
#pragma unroll
  for (int u = 0; u < kVectors; ++u) {
#pragma unroll
    for (int g = 0; g < kOutsPerWarp; ++g)
      wq[u][g] = load_weights(wrow[g] + int64_t(v + u * stride) * 16);
  }
#pragma unroll
  for (int u = 0; u < kVectors; ++u) {
    const int64_t col = int64_t(v + u * stride) * 16;
    uint4 xq[kRows][A::kLoads];
    load_x_slice<A, kRows>(x, k, col, xq);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float wf[kOutsPerWarp][4];
#pragma unroll
      for (int g = 0; g < kOutsPerWarp; ++g) int8x4_to_float(word(wq[u][g], j), wf[g]);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        float xf[4];
        A::chunk(xq[r], j, xf);
#pragma unroll
        for (int g = 0; g < kOutsPerWarp; ++g) {
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[r][g] = fmaf(xf[i], wf[g][i], acc[r][g]);
        }
      }
    }
  }
}

// --- the kernel shape -------------------------------------------------------------------------

// Weight vectors per lane and output loaded before the first is used. Two keep 8 loads in flight;
// when the x vectors of all rows take more than 8 16-byte loads (16-bit rows > 4, float32 rows > 2)
// those registers are needed for x, and with one vector the kernel spills less and ran up to 25%
// faster there on H100 (8 rows, [151936, 896]: 113 µs instead of 150 µs), the same elsewhere.
template <typename A, int kRows>
__host__ __device__ constexpr int unroll_for() {
  return kRows * A::kLoads > 8 ? 1 : 2;
}

// --- the kernel ----------------------------------------------------------------------------------

// Grid: ceil(n / (groups_per_block · kOutsPerWarp)) blocks of kThreads. Block b, warp w: output
// group (b · groups_per_block + w >> split_log2), outputs 4·group .. 4·group + 3, k-slice
// w & (split − 1). split = 2^split_log2 warps share a group; groups_per_block = 8 / split.
template <typename A, int kRows>
__global__ void __launch_bounds__(kThreads, 2)
    w8a16_gemv_kernel(const typename A::Storage* __restrict__ x, const int8_t* __restrict__ w,
                      const float* __restrict__ scale, const typename A::Storage* __restrict__ bias,
                      typename A::Storage* __restrict__ y, int64_t n, int64_t k, int split_log2) {
  constexpr int kPadded = next_pow2(kRows * kOutsPerWarp);  // ≤ 32: kRows ≤ 8
  __shared__ float partial[kWarpsPerBlock][kPadded];

  const WarpTile tile = warp_tile<kOutsPerWarp>(split_log2);
  const int lane = tile.lane, warp = tile.warp, split = tile.split,
            groups_per_block = tile.groups_per_block;
  const int64_t out0 = tile.out0;

  // Outputs past n (the last block's tail) read row n - 1 again rather than branch per load; a
  // group wholly past n reads nothing.
  const int8_t* wrow[kOutsPerWarp];
#pragma unroll
  for (int g = 0; g < kOutsPerWarp; ++g) wrow[g] = w + (out0 + g < n ? out0 + g : n - 1) * k;
  const int vectors = out0 < n ? static_cast<int>(k / 16) : 0;

  float acc[kRows][kOutsPerWarp];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int g = 0; g < kOutsPerWarp; ++g) acc[r][g] = 0.f;
  }

  constexpr int kUnroll = unroll_for<A, kRows>();
  const int stride = split * kWarp;  // vectors between one lane's consecutive reads of a row
  int v = tile.slice * kWarp + lane;
  for (; v + (kUnroll - 1) * stride < vectors; v += kUnroll * stride) {
    accumulate<A, kRows, kUnroll>(x, k, wrow, v, stride, acc);
  }
  for (; v < vectors; v += stride) accumulate<A, kRows, 1>(x, k, wrow, v, stride, acc);

  warp_sums_to_shared(acc, partial, lane, warp);
  OutputSlot slot;
  if (!output_slot<kRows, kOutsPerWarp>(groups_per_block, split_log2, n, slot)) return;
  const int r = slot.row;
  const int64_t out = slot.out;
  const int idx = r * kOutsPerWarp + slot.out_in_block % kOutsPerWarp;
  float sum = 0.f;
  for (int s = 0; s < split; ++s) sum += partial[slot.first_warp + s][idx];
  float result = sum * __ldg(scale + out);
  if (bias != nullptr) result += A::load(bias + out);
  y[r * n + out] = A::from_float(result);
}

// --- launch --------------------------------------------------------------------------------------

template <typename A, int kRows>
void launch_rows(const void* x, const int8_t* w, const float* scale, const void* bias, void* y,
                 int64_t n, int64_t k, cudaStream_t stream) {
  using S = typename A::Storage;
  // Resident blocks per SM of this instantiation (its register count decides: 2 or 3 on
  // sm_70..sm_90), asked once per process: __launch_bounds__(kThreads, 2) guarantees 2.
  static const int resident = blocks_per_sm(w8a16_gemv_kernel<A, kRows>);
  const int64_t groups = (n + kOutsPerWarp - 1) / kOutsPerWarp;
  const int64_t warp_slots = int64_t{multiprocessors()} * resident * kWarpsPerBlock;
  const int split_log2 = split_log2_for(groups, k / 16, warp_slots);
  const int64_t groups_per_block = kWarpsPerBlock >> split_log2;
  const int64_t blocks = (groups + groups_per_block - 1) / groups_per_block;
  w8a16_gemv_kernel<A, kRows><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const S*>(x), w, scale, static_cast<const S*>(bias), static_cast<S*>(y), n, k,
      split_log2);
}

template <typename A>
void launch(const void* x, const int8_t* w, const float* scale, const void* bias, void* y,
            int64_t rows, int64_t n, int64_t k, cudaStream_t stream) {
  switch (rows) {
    case 1:
      launch_rows<A, 1>(x, w, scale, bias, y, n, k, stream);
      break;
    case 2:
      launch_rows<A, 2>(x, w, scale, bias, y, n, k, stream);
      break;
    case 3:
      launch_rows<A, 3>(x, w, scale, bias, y, n, k, stream);
      break;
    case 4:
      launch_rows<A, 4>(x, w, scale, bias, y, n, k, stream);
      break;
    case 5:
      launch_rows<A, 5>(x, w, scale, bias, y, n, k, stream);
      break;
    case 6:
      launch_rows<A, 6>(x, w, scale, bias, y, n, k, stream);
      break;
    case 7:
      launch_rows<A, 7>(x, w, scale, bias, y, n, k, stream);
      break;
    default:
      launch_rows<A, 8>(x, w, scale, bias, y, n, k, stream);
      break;
  }
}

}  // namespace

bool w8a16_gemv(ActType type, const void* x, const int8_t* w, const float* scale, const void* bias,
                void* y, int64_t rows, int64_t n, int64_t k, void* stream) {
  static_assert(kW8A16MaxRows == 8, "the dispatch in launch() instantiates rows 1..8");
  if (rows < 1 || rows > kW8A16MaxRows || n < 0 || k < 0 || k % 16 != 0) return false;
  // The grid's x dimension takes up to 2^31 - 1 blocks of at least kOutsPerWarp outputs; the k loop
  // counts 16-element vectors in int, up to kMaxUnroll block strides past the last one.
  if (n / kOutsPerWarp >= INT32_MAX || k / 16 > INT32_MAX - kMaxUnroll * kThreads) return false;
  if (x == nullptr || w == nullptr || scale == nullptr || y == nullptr) return false;
  if (!aligned16(x) || !aligned16(w)) return false;
  if (n == 0) return true;

  const auto s = static_cast<cudaStream_t>(stream);
  switch (type) {
    case ActType::kFloat32:
      launch<ActF32>(x, w, scale, bias, y, rows, n, k, s);
      break;
    case ActType::kFloat16:
      launch<ActF16>(x, w, scale, bias, y, rows, n, k, s);
      break;
    case ActType::kBFloat16:
      launch<ActBF16>(x, w, scale, bias, y, rows, n, k, s);
      break;
    default:
      return false;
  }
  check_launch("w8a16_gemv");
  return true;
}

}  // namespace docsift::device::cuda_plugin
