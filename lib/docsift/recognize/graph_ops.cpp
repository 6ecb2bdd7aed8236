// The ONNX ops of graph.h, each on LibTorch's CPU ops with opset 12's semantics (graph_ops.h).
#include "docsift/recognize/graph_ops.h"

#include <ATen/Context.h>
#include <ATen/ops/add.h>
#include <ATen/ops/avg_pool2d.h>
#include <ATen/ops/batch_norm.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/div.h>
#include <ATen/ops/erf.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mkldnn_convolution.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/tensor.h>
#include <c10/core/ScalarType.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "docsift/error.h"

namespace docsift::recognize {
namespace {

// ONNX's multidirectional broadcasting is numpy's, which LibTorch's binary ops follow; integer
// division truncates in ONNX (the shape arithmetic's), LibTorch's `/` would give a float.
at::Tensor divide(const at::Tensor& a, const at::Tensor& b) {
  if (c10::isIntegralType(a.scalar_type(), false) && c10::isIntegralType(b.scalar_type(), false)) {
    return at::div(a, b, "trunc");
  }
  return at::div(a, b);
}

std::vector<std::int64_t> int_values(const at::Tensor& t) {
  if (!c10::isIntegralType(t.scalar_type(), false) || t.dim() > 1 || t.numel() > 64) {
    throw Error("expected a small integer list, got a tensor of " + std::to_string(t.numel()) +
                " values");
  }
  const at::Tensor v = t.to(at::kLong).contiguous();
  const std::int64_t* p = v.const_data_ptr<std::int64_t>();
  return {p, p + v.numel()};
}

std::int64_t normal_axis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1)) {
    throw Error("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

// Reshape's target as ONNX (opset ≤ 13, no allowzero) reads it: 0 keeps the input's size there.
std::vector<std::int64_t> reshape_target(const at::Tensor& x, std::vector<std::int64_t> shape) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      if (static_cast<std::int64_t>(i) >= x.dim()) throw Error("Reshape: 0 past the input's rank");
      shape[i] = x.size(static_cast<std::int64_t>(i));
    }
  }
  return shape;
}

at::Tensor onnx_slice(const at::Tensor& x, const std::vector<const at::Tensor*>& in) {
  const std::vector<std::int64_t> starts = int_values(*in[1]), ends = int_values(*in[2]);
  std::vector<std::int64_t> axes(starts.size()), steps(starts.size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (in.size() > 3 && in[3]) axes = int_values(*in[3]);
  if (in.size() > 4 && in[4]) steps = int_values(*in[4]);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    throw Error("Slice: starts, ends, axes and steps differ in length");
  }
  at::Tensor out = x;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t axis = normal_axis(axes[i], x.dim()), size = x.size(axis);
    if (steps[i] <= 0) throw Error("Slice: only positive steps are supported");
    // ONNX clamps: a negative index counts from the end, then [0, size].
    const auto clamp = [size](std::int64_t v) {
      return std::clamp<std::int64_t>(v < 0 ? v + size : v, 0, size);
    };
    const std::int64_t b = clamp(starts[i]), e = std::max(b, clamp(ends[i]));
    out = out.slice(axis, b, e, steps[i]);
  }
  return out;
}

at::Tensor conv(const std::vector<const at::Tensor*>& in, const Attributes& a) {
  at::Tensor x = *in[0];
  // ONNX pads: [top, left, bottom, right]; LibTorch pads symmetrically, so an uneven pad goes
  // first.
  std::vector<std::int64_t> padding = {a.pads[0], a.pads[1]};
  if (a.pads[0] != a.pads[2] || a.pads[1] != a.pads[3]) {
    x = at::constant_pad_nd(x, {a.pads[1], a.pads[3], a.pads[0], a.pads[2]}, 0);
    padding = {0, 0};
  }
  const std::optional<at::Tensor> bias =
      in.size() > 2 && in[2] ? std::optional<at::Tensor>(*in[2]) : std::nullopt;
  // oneDNN's convolution where LibTorch has it, whatever thread count LibTorch believes in: where
  // it counts one (OMP_NUM_THREADS=1, a one-core host) at::conv2d sends the 1x1 convolutions to
  // its im2col-and-GEMM path, 33.5 ms a crop against 25.0 (bench/ocr/bench_recognizer). A run's
  // OMP_THREAD_LIMIT=1 leaves the count at the cores, so there conv2d chose oneDNN already. The
  // weights are channels last as the input is (Graph::Graph), so oneDNN reorders neither.
  if (at::hasMKLDNN() && x.scalar_type() == at::kFloat)
    return at::mkldnn_convolution(x, *in[1], bias, padding, a.strides, a.dilations, a.group);
  return at::conv2d(x, *in[1], bias, a.strides, padding, a.dilations, a.group);
}

at::Tensor average_pool(const at::Tensor& x, const Attributes& a) {
  if (a.pads[0] != a.pads[2] || a.pads[1] != a.pads[3])
    throw Error("AveragePool: uneven pads are not supported");
  return at::avg_pool2d(x, a.kernel, a.strides, {a.pads[0], a.pads[1]}, a.ceil_mode != 0,
                        a.count_include_pad != 0);
}

// MaxPool's pads, uneven where the converter wrote auto_pad's (scripts/convert_ppocr.py), go
// first, with -inf, so that a pad is never the maximum.
at::Tensor max_pool(const at::Tensor& x, const Attributes& a) {
  const at::Tensor padded = at::constant_pad_nd(x, {a.pads[1], a.pads[3], a.pads[0], a.pads[2]},
                                                -std::numeric_limits<double>::infinity());
  return at::max_pool2d(padded, a.kernel, a.strides, {0, 0}, a.dilations, a.ceil_mode != 0);
}

// Before opset 13 the axes are an attribute, each counted in the output's rank.
at::Tensor onnx_unsqueeze(const at::Tensor& x, const std::vector<std::int64_t>& axes) {
  const auto rank = static_cast<std::int64_t>(x.dim() + axes.size());
  std::vector<std::int64_t> dims;
  for (std::int64_t axis : axes) dims.push_back(normal_axis(axis, rank));
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    throw Error("Unsqueeze: an axis named twice");
  at::Tensor out = x;
  for (std::int64_t d : dims) out = out.unsqueeze(d);
  return out;
}

// Softmax before opset 13 works on the input seen as 2-D: [prod(dims < axis), prod(dims >= axis)].
at::Tensor onnx_softmax(const at::Tensor& x, std::int64_t axis) {
  axis = normal_axis(axis, x.dim());
  const std::int64_t rows = std::accumulate(x.sizes().begin(), x.sizes().begin() + axis,
                                            std::int64_t{1}, std::multiplies<>());
  return at::softmax(x.reshape({rows, -1}), 1).reshape(x.sizes());
}

// Clip's bounds are optional inputs, each one value.
at::Tensor onnx_clip(const std::vector<const at::Tensor*>& in) {
  const auto bound = [&](std::size_t i) -> std::optional<at::Scalar> {
    if (in.size() <= i || !in[i]) return std::nullopt;
    if (in[i]->numel() != 1) throw Error("Clip: a bound that is not one value");
    return in[i]->item();
  };
  return at::clamp(*in[0], bound(1), bound(2));
}

at::Tensor global_average_pool(const at::Tensor& x) {
  std::vector<std::int64_t> dims(static_cast<std::size_t>(std::max<std::int64_t>(x.dim() - 2, 0)));
  std::iota(dims.begin(), dims.end(), 2);
  return at::mean(x, dims, true);
}

// No perm reverses the dimensions.
at::Tensor onnx_transpose(const at::Tensor& x, std::vector<std::int64_t> perm) {
  if (perm.empty()) {
    for (std::int64_t i = x.dim() - 1; i >= 0; --i) perm.push_back(i);
  }
  return x.permute(perm).contiguous();
}

// No axes reduces over all of them.
at::Tensor reduce_mean(const at::Tensor& x, const Attributes& a) {
  std::vector<std::int64_t> dims;
  for (std::int64_t axis : a.axes) dims.push_back(normal_axis(axis, x.dim()));
  if (dims.empty()) {
    dims.resize(static_cast<std::size_t>(x.dim()));
    std::iota(dims.begin(), dims.end(), 0);
  }
  return at::mean(x, dims, a.keepdims != 0);
}

// No axes squeezes every dimension of size 1; a named axis must be of size 1.
at::Tensor onnx_squeeze(const at::Tensor& x, const std::vector<std::int64_t>& axes) {
  if (axes.empty()) return x.squeeze();
  at::Tensor out = x;
  std::vector<std::int64_t> dims;
  for (std::int64_t axis : axes) dims.push_back(normal_axis(axis, x.dim()));
  std::sort(dims.rbegin(), dims.rend());
  for (std::int64_t d : dims) {
    if (out.size(d) != 1) throw Error("Squeeze: axis " + std::to_string(d) + " is not of size 1");
    out = out.squeeze(d);
  }
  return out;
}

at::Tensor onnx_concat(const std::vector<const at::Tensor*>& in, std::int64_t axis) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor* t : in) parts.push_back(*t);
  return at::cat(parts, normal_axis(axis, in[0]->dim()));
}

}  // namespace

// A dense convolution in bfloat16 (Precision::BFloat16): the input rounded once, the weights and
// bias rounded when the graph loaded (oneDNN takes a bias of the weights' type); oneDNN sums in
// float32 and rounds the output to bfloat16, which
// goes on as float32. Channels last throughout, as the float32 path.
at::Tensor half_conv(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                     const Attributes& a) {
  const std::optional<at::Tensor> b =
      bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt;
  return at::mkldnn_convolution(x.to(at::kBFloat16), weight, b, {a.pads[0], a.pads[1]}, a.strides,
                                a.dilations, a.group)
      .to(at::kFloat);
}

at::Tensor run_node(const Node& n, const std::vector<const at::Tensor*>& in) {
  const at::Tensor& x = *in[0];
  const Attributes& a = n.a;
  switch (n.op) {
    case Op::Add:
      return at::add(x, *in[1]);
    case Op::Sub:
      return at::sub(x, *in[1]);
    case Op::Mul:
      return at::mul(x, *in[1]);
    case Op::Div:
      return divide(x, *in[1]);
    case Op::Pow:
      return at::pow(x, *in[1]);
    case Op::Sqrt:
      return at::sqrt(x);
    case Op::Relu:
      return at::relu(x);
    case Op::Sigmoid:
      return at::sigmoid(x);
    case Op::HardSigmoid:
      return at::clamp(at::add(at::mul(x, a.alpha), a.beta), 0.0, 1.0);
    case Op::Erf:
      return at::erf(x);
    case Op::Gelu:
      return at::gelu(x);  // x · Φ(x), erf's form, as the exporter's five nodes compute it
    case Op::Clip:
      return onnx_clip(in);
    case Op::Conv:
      return conv(in, a);
    case Op::BatchNormalization:
      return at::batch_norm(x, *in[1], *in[2], *in[3], *in[4], false, 0.0, a.epsilon, false);
    case Op::AveragePool:
      return average_pool(x, a);
    case Op::MaxPool:
      return max_pool(x, a);
    case Op::GlobalAveragePool:
      return global_average_pool(x);
    case Op::MatMul:
      return at::matmul(x, *in[1]);
    case Op::Transpose:
      return onnx_transpose(x, a.perm);
    case Op::Softmax:
      return onnx_softmax(x, a.axis);
    case Op::ReduceMean:
      return reduce_mean(x, a);
    case Op::Squeeze:
      return onnx_squeeze(x, a.axes);
    case Op::Unsqueeze:
      return onnx_unsqueeze(x, a.axes);
    case Op::Concat:
      return onnx_concat(in, a.axis);
    case Op::Reshape:
      return x.reshape(reshape_target(x, int_values(*in[1]))).contiguous();
    case Op::Shape:
      return at::tensor(x.sizes().vec(), at::kLong);
    case Op::Cast:
      return x.to(a.to == 1 ? at::kFloat : a.to == 6 ? at::kInt : at::kLong);
    case Op::Slice:
      return onnx_slice(x, in);
  }
  throw Error("unknown op");
}

}  // namespace docsift::recognize
