// The decode GEMV with weights in the activations' type (see gemv16.h), built as the int8 kernel
// (w8a16_gemv.cu) is, on the same pieces (gemv_common.cuh):
//   - a warp owns 4 consecutive output channels (8 weight rows for kSwiGLU: the 4 gate rows and
//     their 4 up rows, so the epilogue has both halves of each output in the block); each lane
//     reads 16 weights of each row at a time (two 16-byte loads for 16-bit types, four for
//     float32), streamed past L1, with up to 16 loads in flight per lane before the first is used;
//   - the warp's lanes read consecutive 16-element slices of a row, and the `split` warps sharing
//   an
//     output group interleave their slices of k, so a block step reads one contiguous stretch;
//   - x (rows × k, a few KiB) is read with 16-byte loads through L1/L2, shared by every warp;
//   - partial sums: reduce-scatter over the warp, then the split warps through shared memory; one
//     thread per (row, output) adds the bias and applies the epilogue with LibTorch's roundings.
// Needs nothing newer than sm_70 (V100): float16 and bfloat16 are widened by bit operations, the
// outputs rounded with the cuda_fp16.h/cuda_bf16.h conversions that every architecture has.
#include "docsift/device/cuda_plugin/gemv16.h"

#include "docsift/device/cuda_plugin/gemv_common.cuh"
#include "docsift/device/cuda_plugin/launch_check.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace docsift::device::cuda_plugin {
namespace {

using namespace gemv;  // kWarp, kThreads, the element types, reduce_scatter, split_log2_for, ...

// Output channels a warp writes.
constexpr int kOutsPerGroup = 4;
// Vectors of 16 elements in flight per lane and weight row, at most (see unroll_for).
constexpr int kMaxUnroll = 2;

// Two vectors per row keep 16 weight loads in flight for a 16-bit plain product of 1 or 2 rows;
// otherwise one vector's loads are already 16 (SwiGLU's 8 rows, float32's 4 loads a vector) or the
// rows' x vectors need the registers.
template <typename A, int kRows, int kWRows>
__host__ __device__ constexpr int unroll_for() {
  return kWRows * A::kLoads <= 8 && kRows * A::kLoads <= 4 ? 2 : 1;
}

// Adds the products of kVectors 16-element slices, at vector indices v, v + stride, ..., to acc.
// x points at row 0 (row r starts r·k elements later); wrow[g] at weight row g of the warp.
template <typename A, int kRows, int kWRows, int kVectors>
__device__ __forceinline__ void accumulate(const typename A::Storage* __restrict__ x, int64_t k,
                                           const typename A::Storage* const (&wrow)[kWRows], int v,
                                           int stride, float (&acc)[kRows][kWRows]) {
  uint4 wq[kVectors][kWRows][A::kLoads];
#pragma unroll
  for (int u = 0; u < kVectors; ++u) {
#pragma unroll
    for (int g = 0; g < kWRows; ++g) {
      const uint4* p = reinterpret_cast<const uint4*>(wrow[g] + int64_t(v + u * stride) * 16);
#pragma unroll
      for (int l = 0; l < A::kLoads; ++l) wq[u][g][l] = load_streaming(p + l);
    }
  }
#pragma unroll
  for (int u = 0; u < kVectors; ++u) {
    const int64_t col = int64_t(v + u * stride) * 16;
    uint4 xq[kRows][A::kLoads];
    load_x_slice<A, kRows>(x, k, col, xq);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float xf[kRows][4];
#pragma unroll
      for (int r = 0; r < kRows; ++r) A::chunk(xq[r], j, xf[r]);
#pragma unroll
      for (int g = 0; g < kWRows; ++g) {
        float wf[4];
        A::chunk(wq[u][g], j, wf);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[r][g] = fmaf(xf[r][i], wf[i], acc[r][g]);
        }
      }
    }
  }
}

// Grid: ceil(n / (groups_per_block · 4)) blocks of kThreads. Block b, warp w: output group
// (b · groups_per_block + w >> split_log2), outputs 4·group .. 4·group + 3, k-slice w & (split −
// 1).
template <typename A, int kRows, bool kSwiGLU>
__global__ void __launch_bounds__(kThreads, 2)
    gemv16_kernel(const typename A::Storage* __restrict__ x,
                  const typename A::Storage* __restrict__ w,
                  const typename A::Storage* __restrict__ bias, typename A::Storage* __restrict__ y,
                  int64_t n, int64_t k, int split_log2) {
  constexpr int kWRows = kSwiGLU ? 2 * kOutsPerGroup : kOutsPerGroup;
  constexpr int kPadded = next_pow2(kRows * kWRows);
  __shared__ float partial[kWarpsPerBlock][kPadded];

  const WarpTile tile = warp_tile<kOutsPerGroup>(split_log2);
  const int lane = tile.lane, warp = tile.warp, split = tile.split,
            groups_per_block = tile.groups_per_block;
  const int64_t out0 = tile.out0;

  // Outputs past n (the last block's tail) read row n − 1 again rather than branch per load; a
  // group wholly past n reads nothing. SwiGLU's up rows are n rows after their gate rows.
  const typename A::Storage* wrow[kWRows];
#pragma unroll
  for (int g = 0; g < kOutsPerGroup; ++g) {
    const int64_t row = out0 + g < n ? out0 + g : n - 1;
    wrow[g] = w + row * k;
    if constexpr (kSwiGLU) wrow[kOutsPerGroup + g] = w + (n + row) * k;
  }
  const int vectors = out0 < n ? static_cast<int>(k / 16) : 0;

  float acc[kRows][kWRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int g = 0; g < kWRows; ++g) acc[r][g] = 0.f;
  }
  constexpr int kUnroll = unroll_for<A, kRows, kWRows>();
  const int stride = split * kWarp;
  int v = tile.slice * kWarp + lane;
  for (; v + (kUnroll - 1) * stride < vectors; v += kUnroll * stride) {
    accumulate<A, kRows, kWRows, kUnroll>(x, k, wrow, v, stride, acc);
  }
  for (; v < vectors; v += stride) accumulate<A, kRows, kWRows, 1>(x, k, wrow, v, stride, acc);

  warp_sums_to_shared(acc, partial, lane, warp);
  OutputSlot slot;
  if (!output_slot<kRows, kOutsPerGroup>(groups_per_block, split_log2, n, slot)) return;
  const int r = slot.row;
  const int64_t out = slot.out;
  const auto sum_of = [&](int g) {
    float sum = 0.f;
    for (int s = 0; s < split; ++s) sum += partial[slot.first_warp + s][r * kWRows + g];
    return sum;
  };
  const int g = slot.out_in_block % kOutsPerGroup;
  if constexpr (!kSwiGLU) {
    float result = sum_of(g);
    if (bias != nullptr) result += A::load(bias + out);
    y[r * n + out] = A::from_float(result);
  } else {
    const float gate = A::round(sum_of(g) + (bias != nullptr ? A::load(bias + out) : 0.f));
    const float up =
        A::round(sum_of(kOutsPerGroup + g) + (bias != nullptr ? A::load(bias + n + out) : 0.f));
    const float silu = A::round(gate / (1.f + expf(-gate)));
    y[r * n + out] = A::from_float(silu * up);
  }
}

template <typename A, int kRows, bool kSwiGLU>
void launch_rows(const void* x, const void* w, const void* bias, void* y, int64_t n, int64_t k,
                 cudaStream_t stream) {
  using S = typename A::Storage;
  static const int resident = blocks_per_sm(gemv16_kernel<A, kRows, kSwiGLU>);
  const int64_t groups = (n + kOutsPerGroup - 1) / kOutsPerGroup;
  const int64_t warp_slots = int64_t{multiprocessors()} * resident * kWarpsPerBlock;
  const int split_log2 = split_log2_for(groups, k / 16, warp_slots);
  const int64_t groups_per_block = kWarpsPerBlock >> split_log2;
  const int64_t blocks = (groups + groups_per_block - 1) / groups_per_block;
  gemv16_kernel<A, kRows, kSwiGLU><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const S*>(x), static_cast<const S*>(w), static_cast<const S*>(bias),
      static_cast<S*>(y), n, k, split_log2);
}

template <typename A, bool kSwiGLU>
void launch(const void* x, const void* w, const void* bias, void* y, int64_t rows, int64_t n,
            int64_t k, cudaStream_t stream) {
  switch (rows) {
    case 1:
      launch_rows<A, 1, kSwiGLU>(x, w, bias, y, n, k, stream);
      break;
    case 2:
      launch_rows<A, 2, kSwiGLU>(x, w, bias, y, n, k, stream);
      break;
    case 3:
      launch_rows<A, 3, kSwiGLU>(x, w, bias, y, n, k, stream);
      break;
    default:
      launch_rows<A, 4, kSwiGLU>(x, w, bias, y, n, k, stream);
      break;
  }
}

template <typename A>
void launch_type(GemvEpilogue epilogue, const void* x, const void* w, const void* bias, void* y,
                 int64_t rows, int64_t n, int64_t k, cudaStream_t stream) {
  if (epilogue == GemvEpilogue::kSwiGLU) {
    launch<A, true>(x, w, bias, y, rows, n, k, stream);
  } else {
    launch<A, false>(x, w, bias, y, rows, n, k, stream);
  }
}

}  // namespace

bool gemv16(ActType type, GemvEpilogue epilogue, const void* x, const void* w, const void* bias,
            void* y, int64_t rows, int64_t n, int64_t k, void* stream) {
  static_assert(kGemv16MaxRows == 4, "launch() instantiates rows 1..4");
  if (rows < 1 || rows > kGemv16MaxRows || n < 0 || k < 1 || k % 16 != 0) return false;
  if (n / kOutsPerGroup >= INT32_MAX || k / 16 >= INT32_MAX - 2048) return false;
  if (x == nullptr || w == nullptr || y == nullptr || !aligned16(x) || !aligned16(w)) return false;
  if (epilogue != GemvEpilogue::kPlain && epilogue != GemvEpilogue::kSwiGLU) return false;
  if (n == 0) return true;
  static_assert(kMaxUnroll * kThreads <= 2048, "the k loop's index stays in int");
  const auto s = static_cast<cudaStream_t>(stream);
  switch (type) {
    case ActType::kFloat32:
      launch_type<ActF32>(epilogue, x, w, bias, y, rows, n, k, s);
      break;
    case ActType::kFloat16:
      launch_type<ActF16>(epilogue, x, w, bias, y, rows, n, k, s);
      break;
    case ActType::kBFloat16:
      launch_type<ActBF16>(epilogue, x, w, bias, y, rows, n, k, s);
      break;
    default:
      return false;
  }
  check_launch("gemv16");
  return true;
}

}  // namespace docsift::device::cuda_plugin
