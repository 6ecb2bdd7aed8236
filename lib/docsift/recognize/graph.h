// A small ONNX graph run on LibTorch's CPU ops: the trained text recognizer's network (PP-OCRv4's
// SVTR-LCNet), as scripts/convert_ppocr.py writes it at setup time (recognizer.json: the nodes in
// order; recognizer.safetensors: every constant). docs/ocr.md says why not an ONNX runtime: none
// has a Debian package, OpenCV's DNN cannot run this model, and LibTorch is linked already.
//
// Each op with ONNX opset 12's semantics (Softmax's 2-D coercion, Reshape's 0 = "copy", Slice's
// clamping); graph_spec.h checks the file when it loads.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "docsift/recognize/chain.h"
#include "docsift/recognize/graph_spec.h"

namespace docsift::recognize {

// How the dense convolutions multiply (the depthwise ones, the elementwise steps and the
// classifier stay float32 always). BFloat16: their input, weights and bias rounded to bfloat16 (8
// bits of mantissa), multiplied on the CPU's bfloat16 units (Intel AMX) with float32 sums, their
// output rounded to bfloat16 and read on as float32. Those convolutions are half of a crop's time
// (18 of 35 ms); in bfloat16, with the rounding to and fro, a crop takes 24-26 ms against 33-35.
// The readings differ from float32's in a few letters (docs/ocr.md, "How it runs": why float32
// stays the default).
enum class Precision { Float32, BFloat16 };

// Whether LibTorch's oneDNN has a bfloat16 convolution on this CPU at all (AVX-512 BW, VL and DQ;
// elsewhere it refuses one), and whether the CPU multiplies bfloat16 in hardware (AMX-BF16 or
// AVX512-BF16), where Precision::BFloat16 is faster; without, oneDNN converts (likely slower than
// float32; not measured here).
bool cpu_runs_bfloat16();
bool cpu_has_bfloat16();

class Graph {
 public:
  // Reads FOLDER/recognizer.json and FOLDER/recognizer.safetensors; throws docsift::FileError.
  // `fuse`: runs of elementwise steps in one pass each (chain.h), the same output bit for bit;
  // false runs every node alone (the tests compare the two).
  explicit Graph(const std::filesystem::path& folder, bool fuse = true,
                 Precision precision = Precision::Float32);

  // input: [batch, 3, 48, width] float32 on the CPU → the graph's output (the recognizer's:
  // [batch, width / 8, classes] probabilities). Throws docsift::Error naming the node that failed.
  at::Tensor run(const at::Tensor& input) const;

  const std::vector<std::string>& characters() const { return characters_; }
  // How many of the nodes run inside a fused chain.
  std::size_t fused_nodes() const;
  // How many convolutions run in bfloat16 (Precision::BFloat16's dense ones; 0 in float32).
  std::size_t bfloat16_nodes() const;

 private:
  std::vector<std::string> characters_;
  std::vector<at::Tensor> constants_;  // slot i < constants_.size() holds constant i
  // per node: a dense convolution's weight and bias in bfloat16 (Precision::BFloat16), else empty
  std::vector<at::Tensor> half_weight_, half_bias_;
  std::vector<Node> nodes_;
  std::vector<Chain> chains_;
  static constexpr int kNotInChain = -1, kInChain = -2;
  std::vector<int> chain_of_;  // per node: the chain it starts, kInChain or kNotInChain
  // per slot: the last node reading it (a chain's nodes read where the chain runs), so its tensor
  // is freed after
  std::vector<int> last_use_;
  int input_ = 0, output_ = 0, slots_ = 0;
};

}  // namespace docsift::recognize
