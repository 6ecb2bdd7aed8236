// The decode step's attention (see decode_attention.h) in two kernels:
//   1. attend_split: one block per (KV head, 32-position chunk). It rotates the query heads of its
//      group into shared memory; the block whose chunk holds the position also rotates the token's
//      key and writes it and the value into the cache there; then the chunk's scores for every
//      query head of the group (each key row read once for all of them), its softmax max and sum,
//      and its exp-weighted sum of values, into `partial`;
//   2. combine: one block per query head: the chunks rescaled to the common max and summed.
// The position is read from device memory and chunks past it return at once, so the grid depends
// on the capacity only and a CUDA graph replays the step at any position. The work is small (a
// 300-token cache is about 1 MB of an 8B layer's 500 MB); what the kernels save is launches:
// LibTorch's form is about fifteen kernels a layer (RoPE's slices, negation, two products and a
// sum; two index_copy_; the mask; the SDPA call), 2 µs or more each.
// sm_70 and newer: shuffles and the element types' bit operations (gemv_common.cuh).
#include "docsift/device/cuda_plugin/decode_attention.h"

#include "docsift/device/cuda_plugin/gemv_common.cuh"
#include "docsift/device/cuda_plugin/launch_check.cuh"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace docsift::device::cuda_plugin {
namespace {

using gemv::ActBF16;
using gemv::ActF16;
using gemv::ActF32;
using gemv::kFullMask;
using gemv::kWarp;

constexpr int kChunk = static_cast<int>(kDecodeAttentionChunk);
constexpr int kMaxHeadDim = static_cast<int>(kDecodeAttentionMaxHeadDim);
constexpr int kMaxGroups = static_cast<int>(kDecodeAttentionMaxGroups);
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;
// Each warp's positions of a chunk for the scores, loaded together: the cache rows come from DRAM
// (the step's 14 GB of weights pass through L2 in between), so every dependent round of loads
// costs a DRAM latency. The first version read one position, then one value, at a time: 35 µs a
// layer on H100 instead of a few.
constexpr int kPositionsPerWarp = kChunk / kWarps;
// Values loaded together per thread in the weighted sum.
constexpr int kValueBatch = 8;

// The position, bounded to the cache: a position past it writes nothing and reads the whole cache
// rather than memory past it.
__device__ __forceinline__ int64_t length_of(const int64_t* position, int64_t capacity) {
  const int64_t p = *position;
  return p < 0 ? 1 : (p >= capacity ? capacity : p + 1);
}

// Element i of x (one head, hd elements) rotated by RoPE's row c/s, as model::apply_rope's three
// ops round it: each product rounded to the type, then their sum; __fmul_rn and __fadd_rn keep
// nvcc from contracting them into one fma (float32 would then differ). Returns the rounded value.
template <typename A>
__device__ __forceinline__ float rope_at(const typename A::Storage* x, int i, int half,
                                         const typename A::Storage* c,
                                         const typename A::Storage* s) {
  const float v = A::load(x + i);
  const float rotated = i < half ? -A::load(x + i + half) : A::load(x + i - half);
  return A::round(__fadd_rn(A::round(__fmul_rn(v, A::load(c + i))),
                            A::round(__fmul_rn(rotated, A::load(s + i)))));
}

// The scores of the chunk's `count` positions for every query head of the group, scaled, into
// score [groups][kChunk]: warp w takes positions w, w + kWarps, ...; each lane holds hd/32 of each
// key row, all rows loaded before the first is used, and each dot product is summed over the warp.
template <typename A>
__device__ __forceinline__ void chunk_scores(const typename A::Storage* kbase, const float* q,
                                             float* score, int count, int groups, int hd,
                                             float scale) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp,
            warp = static_cast<int>(threadIdx.x) / kWarp;
  float kf[kPositionsPerWarp][kMaxHeadDim / kWarp];
#pragma unroll
  for (int r = 0; r < kPositionsPerWarp; ++r) {
    const int pp = warp + r * kWarps;
#pragma unroll
    for (int m = 0; m < kMaxHeadDim / kWarp; ++m) {
      const int d = lane + kWarp * m;
      kf[r][m] = pp < count && d < hd ? A::to_float(kbase[int64_t(pp) * hd + d]) : 0.f;
    }
  }
#pragma unroll
  for (int r = 0; r < kPositionsPerWarp; ++r) {
    const int pp = warp + r * kWarps;  // the same for the whole warp: the shuffles stay converged
    for (int g = 0; g < groups; ++g) {
      float dot = 0.f;
#pragma unroll
      for (int m = 0; m < kMaxHeadDim / kWarp; ++m) {
        const int d = lane + kWarp * m;
        if (d < hd) dot = fmaf(kf[r][m], q[g * hd + d], dot);
      }
#pragma unroll
      for (int offset = kWarp / 2; offset > 0; offset /= 2)
        dot += __shfl_xor_sync(kFullMask, dot, offset);
      if (lane == 0 && pp < count) score[g * kChunk + pp] = dot * scale;
    }
  }
}

// Σ over the chunk's positions of weight · value, for every query head of the group, into
// sums [kThreads / hd][groups][hd]: thread t takes element t % hd of the positions part,
// part + parts, ... (part = t / hd, parts = kThreads / hd), kValueBatch rows loaded at a time.
// The caller adds the parts.
template <typename A>
__device__ __forceinline__ void weighted_values(const typename A::Storage* vbase,
                                                const float* weights, float* sums, int count,
                                                int groups, int hd) {
  const int t = static_cast<int>(threadIdx.x);
  const int parts = kThreads / hd, part = t / hd, d = t % hd;
  if (part >= parts) return;
  float acc[kMaxGroups];
#pragma unroll
  for (int g = 0; g < kMaxGroups; ++g) acc[g] = 0.f;
  for (int first = part; first < count; first += kValueBatch * parts) {
    float v[kValueBatch];
#pragma unroll
    for (int u = 0; u < kValueBatch; ++u) {
      const int pp = first + u * parts;
      v[u] = pp < count ? A::to_float(vbase[int64_t(pp) * hd + d]) : 0.f;
    }
#pragma unroll
    for (int u = 0; u < kValueBatch; ++u) {
      const int pp = first + u * parts;
      if (pp >= count) break;
#pragma unroll
      for (int g = 0; g < kMaxGroups; ++g) {
        if (g < groups) acc[g] = fmaf(weights[g * kChunk + pp], v[u], acc[g]);
      }
    }
  }
#pragma unroll
  for (int g = 0; g < kMaxGroups; ++g) {
    if (g < groups) sums[(part * groups + g) * hd + d] = acc[g];
  }
}

// The group's query heads rotated into q [groups][hd]; the block whose chunk holds the position
// also rotates the token's key of KV head j and writes it, and its value, into the cache there.
template <typename A>
__device__ __forceinline__ void rotate_and_write(
    const typename A::Storage* qkv, const typename A::Storage* c, const typename A::Storage* s,
    float* q, typename A::Storage* keys, typename A::Storage* values, int j, int heads,
    int kv_heads, int hd, int64_t capacity, int64_t p, int64_t start) {
  const int t = static_cast<int>(threadIdx.x), groups = heads / kv_heads, half = hd / 2;
#pragma unroll 4
  for (int i = t; i < groups * hd; i += kThreads) {
    q[i] = rope_at<A>(qkv + (int64_t(j) * groups + i / hd) * hd, i % hd, half, c, s);
  }
  if (p >= start && p < start + kChunk && p < capacity) {
    const typename A::Storage* k_in = qkv + int64_t(heads + j) * hd;
    const typename A::Storage* v_in = qkv + int64_t(heads + kv_heads + j) * hd;
    for (int d = t; d < hd; d += kThreads) {
      keys[(int64_t(j) * capacity + p) * hd + d] = A::from_float(rope_at<A>(k_in, d, half, c, s));
      values[(int64_t(j) * capacity + p) * hd + d] = v_in[d];
    }
  }
}

// Shared memory, float32: q [groups][hd], the chunk's scores [groups][kChunk], and the weighted
// sums' parts [kThreads / hd][groups][hd]. keys and values are written and read in the same
// kernel: plain loads (to_float), not the read-only cache.
template <typename A>
__global__ void __launch_bounds__(kThreads)
    attend_split_kernel(const typename A::Storage* __restrict__ qkv,
                        const typename A::Storage* __restrict__ cos,
                        const typename A::Storage* __restrict__ sin,
                        const int64_t* __restrict__ position, typename A::Storage* keys,
                        typename A::Storage* values, float* __restrict__ partial, int heads,
                        int kv_heads, int hd, int64_t capacity, int splits, float scale) {
  extern __shared__ float smem[];
  const int groups = heads / kv_heads;
  float* q = smem;
  float* score = smem + groups * hd;
  float* sums = score + groups * kChunk;
  const int j = static_cast<int>(blockIdx.x);  // the KV head; its query heads are j·groups …
  const int split = static_cast<int>(blockIdx.y);
  const int64_t start = int64_t(split) * kChunk;
  const int64_t len = length_of(position, capacity);
  if (start >= len) return;
  const int count = static_cast<int>(len - start < kChunk ? len - start : kChunk);
  const int t = static_cast<int>(threadIdx.x);
  const int64_t p = *position;
  const int64_t row = (p >= 0 && p < capacity ? p : 0) * hd;
  rotate_and_write<A>(qkv, cos + row, sin + row, q, keys, values, j, heads, kv_heads, hd, capacity,
                      p, start);
  __syncthreads();  // q, and the token's key and value row, seen by every thread of the block
  chunk_scores<A>(keys + (int64_t(j) * capacity + start) * hd, q, score, count, groups, hd, scale);
  __syncthreads();

  // The chunk's softmax pieces per query head: its max m and Σ exp(score − m); scores become
  // weights.
  const int stride = hd + 2;
  if (t < groups) {
    float* weights = score + t * kChunk;
    float m = -INFINITY;
    for (int pp = 0; pp < count; ++pp) m = fmaxf(m, weights[pp]);
    float l = 0.f;
    for (int pp = 0; pp < count; ++pp) {
      weights[pp] = expf(weights[pp] - m);
      l += weights[pp];
    }
    float* dst = partial + ((int64_t(j) * groups + t) * splits + split) * stride;
    dst[hd] = m;
    dst[hd + 1] = l;
  }
  __syncthreads();
  weighted_values<A>(values + (int64_t(j) * capacity + start) * hd, score, sums, count, groups, hd);
  __syncthreads();
  const int parts = kThreads / hd;
  for (int i = t; i < groups * hd; i += kThreads) {
    float total = 0.f;
    for (int k = 0; k < parts; ++k) total += sums[(k * groups + i / hd) * hd + i % hd];
    partial[((int64_t(j) * groups + i / hd) * splits + split) * stride + i % hd] = total;
  }
}

template <typename A>
__global__ void __launch_bounds__(kThreads)
    combine_kernel(const float* __restrict__ partial, const int64_t* __restrict__ position,
                   typename A::Storage* __restrict__ out, int hd, int64_t capacity, int splits) {
  const int h = static_cast<int>(blockIdx.x);
  const int used = static_cast<int>((length_of(position, capacity) + kChunk - 1) / kChunk);
  const int stride = hd + 2;
  const float* base = partial + int64_t(h) * splits * stride;
  float m = -INFINITY;
  for (int s = 0; s < used; ++s) m = fmaxf(m, base[s * stride + hd]);
  float l = 0.f;
  for (int s = 0; s < used; ++s) l += base[s * stride + hd + 1] * expf(base[s * stride + hd] - m);
  for (int d = static_cast<int>(threadIdx.x); d < hd; d += kThreads) {
    float acc = 0.f;
    for (int s = 0; s < used; ++s) acc += base[s * stride + d] * expf(base[s * stride + hd] - m);
    out[int64_t(h) * hd + d] = A::from_float(acc / l);
  }
}

template <typename A>
void launch(const DecodeAttentionArgs& a, cudaStream_t stream) {
  using S = typename A::Storage;
  const int heads = static_cast<int>(a.heads), kv = static_cast<int>(a.kv_heads),
            hd = static_cast<int>(a.head_dim);
  const int splits = static_cast<int>(decode_attention_splits(a.capacity));
  const std::size_t smem =
      sizeof(float) * static_cast<std::size_t>(heads / kv) * (hd + kChunk + (kThreads / hd) * hd);
  attend_split_kernel<A><<<dim3(kv, splits), kThreads, smem, stream>>>(
      static_cast<const S*>(a.qkv), static_cast<const S*>(a.cos), static_cast<const S*>(a.sin),
      a.position, static_cast<S*>(a.keys), static_cast<S*>(a.values), a.partial, heads, kv, hd,
      a.capacity, splits, a.scale);
  combine_kernel<A><<<heads, kThreads, 0, stream>>>(a.partial, a.position, static_cast<S*>(a.out),
                                                    hd, a.capacity, splits);
}

}  // namespace

bool decode_attention(const DecodeAttentionArgs& a, void* stream) {
  if (a.heads < 1 || a.kv_heads < 1 || a.heads % a.kv_heads != 0 ||
      a.heads / a.kv_heads > kDecodeAttentionMaxGroups) {
    return false;
  }
  if (a.head_dim < 2 || a.head_dim % 2 != 0 || a.head_dim > kDecodeAttentionMaxHeadDim ||
      a.capacity < 1)
    return false;
  // The grid's y dimension holds up to 65,535 chunks; heads fit an int many times over.
  if (decode_attention_splits(a.capacity) > 65535 || a.heads > 65535) return false;
  if (!a.qkv || !a.cos || !a.sin || !a.position || !a.keys || !a.values || !a.out || !a.partial) {
    return false;
  }
  const auto s = static_cast<cudaStream_t>(stream);
  switch (a.type) {
    case ActType::kFloat32:
      launch<ActF32>(a, s);
      break;
    case ActType::kFloat16:
      launch<ActF16>(a, s);
      break;
    case ActType::kBFloat16:
      launch<ActBF16>(a, s);
      break;
    default:
      return false;
  }
  check_launch("decode_attention");
  return true;
}

}  // namespace docsift::device::cuda_plugin
