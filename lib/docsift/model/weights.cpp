#include "docsift/model/weights.h"

#include <ATen/ops/empty.h>

#include <algorithm>

#include "docsift/error.h"

namespace docsift::model {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

WeightLoader::WeightLoader(const Checkpoint& checkpoint, at::ScalarType dtype, at::Device device)
    : checkpoint_(checkpoint), dtype_(dtype), device_(device) {}

at::Tensor WeightLoader::take(const std::string& name, const std::vector<int64_t>& expected) {
  return take_as(name, expected, dtype_);
}

at::Tensor WeightLoader::take_float(const std::string& name, const std::vector<int64_t>& expected) {
  return take_as(name, expected, at::kFloat);
}

bool WeightLoader::check(const std::string& name, const std::vector<int64_t>& expected) {
  const TensorEntry* entry = checkpoint_.find(name);
  if (entry == nullptr) {
    missing_.push_back(name);
    return false;
  }
  used_.insert(name);
  if (entry->shape != expected) {
    misshapen_.push_back(name + " is " + shape_string(entry->shape) + ", config.json implies " +
                         shape_string(expected));
    return false;
  }
  return true;
}

at::Tensor WeightLoader::take_as(const std::string& name, const std::vector<int64_t>& expected,
                                 at::ScalarType dtype) {
  return check(name, expected) ? checkpoint_.load(name, dtype, device_) : at::Tensor();
}

LinearWeight WeightLoader::take_linear(const std::string& prefix, int64_t out, int64_t in,
                                       bool bias, bool int8) {
  LinearWeight l;
  const std::string name = prefix + "weight";
  if (bias) l.bias = take(prefix + "bias", {out});
  if (!int8) {
    l.weight = take(name, {out, in});
    return l;
  }
  if (!check(name, {out, in})) return l;
  // Blocks of about 16 M elements (64 MB in float32) on the target device.
  constexpr int64_t kBlockElements = int64_t{1} << 24;
  LinearWeight q =
      quantize_int8(checkpoint_.view(name), device_, std::max<int64_t>(1, kBlockElements / in));
  q.bias = std::move(l.bias);
  l = std::move(q);
  checkpoint_.release(name);
  return l;
}

LinearWeight WeightLoader::take_linear_stacked(
    const std::vector<std::pair<std::string, int64_t>>& parts, int64_t in, bool bias, bool int8) {
  if (int8) {
    // Each part quantized as it streams in (take_linear), then stacked: the transient copy is int8.
    std::vector<LinearWeight> layers;
    for (const auto& [prefix, out] : parts)
      layers.push_back(take_linear(prefix, out, in, bias, int8));
    return stack_outputs(layers);
  }
  bool present = true;
  int64_t rows = 0;
  for (const auto& [prefix, out] : parts) {
    present = check(prefix + "weight", {out, in}) && present;
    if (bias) present = check(prefix + "bias", {out}) && present;
    rows += out;
  }
  if (!present) return {};
  // Each part converted straight from the mapping into its rows of the stacked weight, so a layer
  // costs no copy beyond the one it always did, and the mapping's pages are given back at once.
  const auto options = at::TensorOptions().dtype(dtype_).device(device_);
  LinearWeight l;
  l.weight = at::empty({rows, in}, options);
  if (bias) l.bias = at::empty({rows}, options);
  int64_t row = 0;
  const auto fill = [&](at::Tensor& target, const std::string& name, int64_t out) {
    target.narrow(0, row, out).copy_(checkpoint_.view(name));
    checkpoint_.release(name);
  };
  for (const auto& [prefix, out] : parts) {
    fill(l.weight, prefix + "weight", out);
    if (bias) fill(l.bias, prefix + "bias", out);
    row += out;
  }
  return l;
}

void WeightLoader::finish() const {
  std::vector<std::string> unexpected;
  for (const TensorEntry* entry : checkpoint_.entries()) {
    if (used_.count(entry->name) == 0) unexpected.push_back(entry->name);
  }
  if (missing_.empty() && misshapen_.empty() && unexpected.empty()) return;
  std::string message = checkpoint_.dir().string() + ": the weights do not match config.json:";
  const auto list = [&](const char* what, const std::vector<std::string>& names) {
    if (names.empty()) return;
    message += std::string(" ") + what + " (" + std::to_string(names.size()) + "): ";
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) message += (i ? "; " : "") + names[i];
    if (names.size() > 5) message += " and " + std::to_string(names.size() - 5) + " more";
    message += ".";
  };
  list("missing", missing_);
  list("wrong shape", misshapen_);
  list("unexpected", unexpected);
  throw FileError(message +
                  " Is this checkpoint complete, and is config.json the one it was saved with?");
}

}  // namespace docsift::model
