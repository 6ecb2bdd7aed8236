// One decode step's attention in two launches instead of about fifteen LibTorch kernels: RoPE on
// the token's queries and keys, its keys and values written into the layer's KV cache at the
// step's position, and grouped-query attention of its queries over the cache's first position + 1
// entries, split along the positions (split-K, "flash decoding") so that a short step still
// spreads over the card, then the splits combined. The position is read on the device, so a CUDA
// graph replays the step unchanged from token to token (model/decode_graph.h).
//
// Plain C++: no LibTorch or CUDA headers (as w8a16.h); the kernels are in decode_attention.cu.
#pragma once

#include <cstdint>

#include "docsift/device/cuda_plugin/w8a16.h"

namespace docsift::device::cuda_plugin {

// Positions one block of the split attention reads.
constexpr int64_t kDecodeAttentionChunk = 32;
// The largest head size and query heads per KV head the kernels take.
constexpr int64_t kDecodeAttentionMaxHeadDim = 256;
constexpr int64_t kDecodeAttentionMaxGroups = 16;

// Every tensor is row-major contiguous, of `type` unless said, device memory of the stream's
// device.
struct DecodeAttentionArgs {
  ActType type = ActType::kFloat32;
  const void* qkv =
      nullptr;  // [heads + 2·kv_heads, head_dim]: the token's q heads, k heads, v heads
  const void* cos = nullptr;  // [capacity, head_dim]: RoPE's tables, row p for position p
  const void* sin = nullptr;
  const int64_t* position = nullptr;  // [1] int64: the token's position, 0 ≤ position < capacity
  void* keys = nullptr;               // [kv_heads, capacity, head_dim]: the layer's cache
  void* values = nullptr;
  void* out = nullptr;       // [heads, head_dim]: the attention output
  float* partial = nullptr;  // scratch [heads, splits(capacity), head_dim + 2] float32
  int64_t heads = 0, kv_heads = 0, head_dim = 0, capacity = 0;
  float scale = 1.f;  // the scores' factor, 1/√head_dim as LibTorch's default
};

// The split count for a cache of `capacity` positions, and the floats `partial` must hold (inline:
// the program sizes the scratch, the plugin reads it).
inline int64_t decode_attention_splits(int64_t capacity) {
  return (capacity + kDecodeAttentionChunk - 1) / kDecodeAttentionChunk;
}
inline int64_t decode_attention_partial_floats(int64_t heads, int64_t head_dim, int64_t capacity) {
  return heads * decode_attention_splits(capacity) * (head_dim + 2);
}

// With p = *position:
//   rope(x)[i]   = round(round(x[i] · cos[p, i]) + round(rot(x)[i] · sin[p, i])),
//                  rot(x) = (−x[h/2 …], x[… h/2]): model::apply_rope's ops and roundings
//   keys[j, p]   = rope(k_j), values[j, p] = v_j
//   out[h]       = softmax(scale · rope(q_h) · keys[j, 0..p]ᵀ) · values[j, 0..p], j = h / (heads /
//   kv_heads)
// scores, softmax and sums in float32, out rounded once. Entries past p are never read (the cache
// there may hold anything).
// Returns true when launched; false, launching nothing, when the call is not one the kernels take
// (heads not a multiple of kv_heads, more than kDecodeAttentionMaxGroups groups, head_dim odd or
// over kDecodeAttentionMaxHeadDim, capacity < 1, a pointer missing), and the caller then uses its
// LibTorch ops. Throws std::runtime_error with cudaGetErrorString's text when a launch fails.
bool decode_attention(const DecodeAttentionArgs& args, void* stream);

}  // namespace docsift::device::cuda_plugin
