// Runs of elementwise ops on one value with one-value constants (PP-LCNetV3's learnable affine
// blocks and hard-swish: x·w + b, then x·clip(x + 3, 0, 6) / 6, then x·w + b again, eight ONNX
// nodes around every convolution), folded into one pass over the tensor instead of eight passes
// and eight allocations. Each step rounds as LibTorch's op does (one IEEE operation at a time, in
// the same order, no fused multiply-add: CMake builds chain_steps.cpp with -ffp-contract=off), so
// the graph's output is bit for bit the unfused one's (tests/parity/test_recognizer.cpp checks).
// docs/ocr.md, "How it runs", gives what it saves.
#pragma once

#include <ATen/core/Tensor.h>
#include <cstddef>
#include <limits>
#include <vector>

#include "docsift/recognize/graph_spec.h"

namespace docsift::recognize {

struct Step {
  enum class Kind { Add, Sub, Mul, Div, Clip, Relu, HardSwish } kind = Kind::Add;
  float a = 0;                                         // Add .. Div: x op a; HardSwish: x + a
  float lo = -std::numeric_limits<float>::infinity(),  // Clip, HardSwish: clamped to [lo, hi]
      hi = std::numeric_limits<float>::infinity();
  float b = 1;  // HardSwish: x · clip(x + a, lo, hi) / b
};

// Nodes first .. last (in `nodes`' order; those between that are not the chain's run as usual)
// read `input` and end in `output`; every value between is read by the chain alone.
struct Chain {
  std::size_t first = 0;
  std::vector<std::size_t> nodes;  // the chain's nodes, in order
  int input = 0, output = 0;
  bool in_place = false;  // no node after the chain reads `input`: its tensor may be written over
  std::vector<Step> steps;
};

// The chains of two steps or more in `nodes`. `constants`: slot i < constants.size() holds
// constant i; `graph_input` and `graph_output` are never written over nor folded away.
std::vector<Chain> find_chains(const std::vector<Node>& nodes,
                               const std::vector<at::Tensor>& constants, int slots, int graph_input,
                               int graph_output);

// The steps over `in` (float32, any dense layout): into `in` itself when `in_place` and nothing
// else shares its storage, else into a new tensor of its layout. Returns the result.
at::Tensor run_chain(const std::vector<Step>& steps, at::Tensor in, bool in_place);

// The steps over n floats from `in` into `out` (which may be `in`), LibTorch-free and built without
// fused multiply-adds (chain_steps.cpp).
void run_steps(const std::vector<Step>& steps, const float* in, float* out, std::size_t n);

}  // namespace docsift::recognize
