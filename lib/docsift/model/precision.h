// The config's precision names as LibTorch dtypes.
#pragma once

#include <c10/core/ScalarType.h>

#include "docsift/config/config.h"

namespace docsift::model {

inline c10::ScalarType scalar_type(config::Precision precision) {
  switch (precision) {
    case config::Precision::Float32: return c10::kFloat;
    case config::Precision::Float16: return c10::kHalf;
    case config::Precision::BFloat16: return c10::kBFloat16;
  }
  return c10::kFloat;
}

// How a model's weights are held and its decoder computed; a reload with other Numerics gives
// another model (the cpu tier: float32, unquantized by default).
struct Numerics {
  c10::ScalarType dtype = c10::kFloat;
  config::Quantization quantization = config::Quantization::None;
  // Only read when dtype is float16.
  config::Float16Residual float16_residual = config::Float16Residual::Float32;
  bool operator==(const Numerics&) const = default;
};

}  // namespace docsift::model
