#include "docsift/device/vector_math.h"

#include <ATen/ops/acos.h>
#include <ATen/ops/asin.h>
#include <ATen/ops/atan.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/erf.h>
#include <ATen/ops/erfc.h>
#include <ATen/ops/erfinv.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/log.h>
#include <ATen/ops/log10.h>
#include <ATen/ops/log2.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/tan.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/trunc.h>

#include <mutex>

namespace docsift::device {

void settle_vector_math() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The functions LibTorch's CPU kernels route to VML, in float32 and float64 (VML's vms* and
    // vmd*). One element is below every parallel grain, so each first call runs on this
    // thread alone. A LibTorch without MKL computes them itself, and this costs nothing.
    using Op = at::Tensor (*)(const at::Tensor&);
    constexpr Op kOps[] = {at::acos,   at::asin, at::atan, at::cos,   at::erf,  at::erfc,
                           at::erfinv, at::exp,  at::log,  at::log10, at::log2, at::sin,
                           at::sqrt,   at::tan,  at::tanh, at::trunc};
    for (const auto dtype : {at::kFloat, at::kDouble}) {
      const at::Tensor half = at::full({1}, 0.5, at::TensorOptions().dtype(dtype));
      for (const Op op : kOps) op(half);
    }
  });
}

}  // namespace docsift::device
