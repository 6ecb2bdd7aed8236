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

#include "docsift/recognize/graph_spec.h"

namespace docsift::recognize {

class Graph {
 public:
  // Reads FOLDER/recognizer.json and FOLDER/recognizer.safetensors; throws docsift::FileError.
  explicit Graph(const std::filesystem::path& folder);

  // input: [batch, 3, 48, width] float32 on the CPU → the graph's output (the recognizer's:
  // [batch, width / 8, classes] probabilities). Throws docsift::Error naming the node that failed.
  at::Tensor run(const at::Tensor& input) const;

  const std::vector<std::string>& characters() const { return characters_; }

 private:
  std::vector<std::string> characters_;
  std::vector<at::Tensor> constants_;  // slot i < constants_.size() holds constant i
  std::vector<Node> nodes_;
  std::vector<int> last_use_;  // per slot: the last node reading it, so its tensor is freed after
  int input_ = 0, output_ = 0, slots_ = 0;
};

}  // namespace docsift::recognize
