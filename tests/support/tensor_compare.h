// Tensors the parity tests compare with their references.
#pragma once

#include <ATen/core/Tensor.h>
#include <cstdint>
#include <vector>

namespace docsift::testing {

// Largest |a − b| in float32; infinity when the shapes differ (so a CHECK on it fails).
double max_diff(const at::Tensor& a, const at::Tensor& b);

// A reference's token ids (any integer tensor) as the ids generate() returns.
std::vector<int32_t> token_ids(const at::Tensor& ids);

}  // namespace docsift::testing
