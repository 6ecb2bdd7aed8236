// The numerics (numerics.h) as LibTorch dtypes.
#pragma once

#include <c10/core/ScalarType.h>

#include "docsift/model/numerics.h"

namespace docsift::model {

inline c10::ScalarType scalar_type(model::Precision precision) {
  switch (precision) {
    case model::Precision::Float32:
      return c10::kFloat;
    case model::Precision::Float16:
      return c10::kHalf;
    case model::Precision::BFloat16:
      return c10::kBFloat16;
  }
  return c10::kFloat;
}

// How a model's weights are held and its decoder computed; a reload with other Numerics gives
// another model (the cpu tier: float32, unquantized by default).
struct Numerics {
  c10::ScalarType dtype = c10::kFloat;
  model::Quantization quantization = model::Quantization::None;
  // Only read when dtype is float16.
  model::Float16Residual float16_residual = model::Float16Residual::Float32;
  // On a CUDA device, the decoder's residual add and RMSNorm as one kernel of the plugin's
  // (device/cuda_plugin/add_rms_norm.h) where it takes the shapes; LibTorch's ops elsewhere.
  bool fused_norm = true;
  // On a CUDA device, the decode step's matrix-vector products (device/cuda_plugin/gemv16.h) and
  // its RoPE, cache write and attention (decode_attention.h) as docsift's kernels where they take
  // the shapes; cuBLAS and LibTorch's ops elsewhere. Both are on by default: measured faster on a
  // GPU with the same greedy tokens (docs/gpu.md); false gives LibTorch's ops, the reference.
  bool decode_kernels = true;
  bool operator==(const Numerics&) const = default;
};

}  // namespace docsift::model
