// The recognizer's graph as scripts/convert_ppocr.py writes it (recognizer.json), parsed and
// checked without LibTorch, so that the parser that reads this file from disk is fuzzed on its own
// (tests/fuzz/fuzz_recognizer_graph.cpp). graph.h binds it to the constants and runs it.
//
// Only the operators the recognizer uses are accepted, each with the attributes ONNX opset 12 gives
// it. Every node's op, arity and attributes are checked, and every input must be a constant, the
// graph's input or an earlier node's output, so that a corrupt or foreign file fails here, naming
// the file and the node, and never midway through a page.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::recognize {

enum class Op {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Sqrt,
  Relu,
  Sigmoid,
  HardSigmoid,
  Erf,
  Gelu,  // docsift's own: scripts/convert_ppocr.py folds ONNX's five-node GELU into one
  Clip,
  Conv,
  BatchNormalization,
  AveragePool,
  MaxPool,
  GlobalAveragePool,
  MatMul,
  Transpose,
  Softmax,
  ReduceMean,
  Squeeze,
  Unsqueeze,
  Concat,
  Reshape,
  Shape,
  Cast,
  Slice
};

// The attributes an op reads; defaults as ONNX's.
struct Attributes {
  std::vector<std::int64_t> kernel, strides, pads,
      dilations;                         // Conv, AveragePool, MaxPool (filled in for 2-D)
  std::vector<std::int64_t> perm, axes;  // Transpose; ReduceMean, Squeeze, Unsqueeze
  std::int64_t group = 1, axis = 1, to = 0, ceil_mode = 0, count_include_pad = 0, keepdims = 1;
  double alpha = 0.2, beta = 0.5, epsilon = 1e-5;
};

struct Node {
  Op op = Op::Add;
  std::vector<int>
      inputs;  // value slots; -1 for an optional input left out (Clip's min, Conv's bias)
  int output = 0;
  Attributes a;
};

// Value slots: 0 .. constants - 1 the constants (in the order given to parse_graph_spec), then the
// graph's input, then each node's output in order.
struct GraphSpec {
  std::vector<std::string> characters;  // the CTC classes after the blank, before the space
  std::vector<Node> nodes;
  int input = 0, output = 0, slots = 0;
};

// `text`: recognizer.json's bytes; `label`: its path, for messages; `constants`: the names of the
// constants in recognizer.safetensors. Throws docsift::FileError naming `label` and the node.
GraphSpec parse_graph_spec(std::string_view text, const std::string& label,
                           const std::vector<std::string>& constants);

// The converter's file is ~90 KB (most of it the 6,623 characters); far larger is not one of ours.
inline constexpr std::size_t kMaxGraphJsonBytes = 8u << 20;

}  // namespace docsift::recognize
