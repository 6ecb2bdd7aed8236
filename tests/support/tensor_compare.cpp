#include "support/tensor_compare.h"

#include <limits>

namespace docsift::testing {

std::vector<int32_t> token_ids(const at::Tensor& ids) {
  const at::Tensor c = ids.to(at::kLong).contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

double max_diff(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return std::numeric_limits<double>::infinity();
  // On the host: a GPU case compares its device tensors with references read on the CPU.
  return a.to(at::kCPU, at::kFloat).sub(b.to(at::kCPU, at::kFloat)).abs().max().item<double>();
}

}  // namespace docsift::testing
