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

}  // namespace docsift::model
