// Loads a model's weights by name from a Checkpoint, checking each against the shape the model
// expects, and accounts for every tensor: missing, misshapen and unexpected tensors are all
// reported together in one error, so a user fixing a checkpoint sees the whole list at once.
#pragma once

#include <ATen/core/Tensor.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "docsift/model/checkpoint.h"
#include "docsift/model/linear.h"

namespace docsift::model {

class WeightLoader {
 public:
  WeightLoader(const Checkpoint& checkpoint, at::ScalarType dtype, at::Device device);

  bool has(const std::string& name) const { return checkpoint_.find(name) != nullptr; }
  // The tensor in the model's dtype and device, or an undefined tensor (and a recorded problem)
  // when it is missing or its shape is not `expected`.
  at::Tensor take(const std::string& name, const std::vector<int64_t>& expected);
  // Like take(), in float32 whatever the model dtype (norm weights used in fp32 math).
  at::Tensor take_float(const std::string& name, const std::vector<int64_t>& expected);
  // A linear layer `prefix`weight [out, in] (and `prefix`bias [out] when `bias`): in the model's
  // dtype, or with `int8` quantized as it streams from the mapping, a block of rows at a time, so
  // neither the host nor the device ever holds the whole tensor in full precision. Undefined
  // (with a recorded problem) when missing or misshapen.
  LinearWeight take_linear(const std::string& prefix, int64_t out, int64_t in, bool bias,
                           bool int8);
  // Linear layers that read the same input, each {prefix, out} as take_linear, stacked into one
  // (stack_outputs: q/k/v, gate/up): dense parts are converted straight into their rows of the
  // stacked weight and their pages of the mapping given back, so the model holds each weight once.
  LinearWeight take_linear_stacked(const std::vector<std::pair<std::string, int64_t>>& parts,
                                   int64_t in, bool bias, bool int8);
  // Marks a tensor as knowingly unused (e.g. a tied lm_head copy).
  void skip(const std::string& name) { used_.insert(name); }

  // Throws docsift::FileError listing every missing, misshapen and unexpected tensor.
  void finish() const;

 private:
  at::Tensor take_as(const std::string& name, const std::vector<int64_t>& expected,
                     at::ScalarType dtype);
  // Records the name as used and checks it; false (problem recorded) when missing or misshapen.
  bool check(const std::string& name, const std::vector<int64_t>& expected);

  const Checkpoint& checkpoint_;
  at::ScalarType dtype_;
  at::Device device_;
  std::set<std::string> used_;
  std::vector<std::string> missing_, misshapen_;
};

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace docsift::model
