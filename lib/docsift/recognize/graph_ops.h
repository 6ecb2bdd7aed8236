// The ONNX ops a recognizer graph runs (graph.h), each with ONNX opset 12's semantics on LibTorch's
// CPU ops; apart from the graph's loading and scheduling.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "docsift/recognize/graph_spec.h"

namespace docsift::recognize {

// Node `n` over its inputs (null where an optional one is absent). Throws docsift::Error for what
// the op cannot take; LibTorch's c10::Error passes through.
at::Tensor run_node(const Node& n, const std::vector<const at::Tensor*>& in);

// A dense convolution with bfloat16 weights (Graph's Precision::BFloat16): `x` float32, channels
// last; `bias` may be undefined. Float32 out.
at::Tensor half_conv(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                     const Attributes& a);

}  // namespace docsift::recognize
