// The recognizer's fused elementwise steps (lib/docsift/recognize/chain.h) on graphs written here:
// which nodes a chain takes and where it must stop, and that its one pass gives LibTorch's ops'
// result bit for bit. tests/parity/test_recognizer.cpp runs the real network both ways.
#include <ATen/ops/add.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/div.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/tensor.h>
#include <c10/core/InferenceMode.h>

#include <vector>

#include "docsift/recognize/chain.h"

#include <doctest/doctest.h>

namespace {

using docsift::recognize::Chain;
using docsift::recognize::Node;
using docsift::recognize::Op;
using docsift::recognize::Step;

// Constants 0 .. 5: w = 0.7, b = -0.25, three, zero, six, w2 = 1.3; slot 6 the graph's input.
std::vector<at::Tensor> constants() {
  std::vector<at::Tensor> c;
  for (float v : {0.7f, -0.25f, 3.0f, 0.0f, 6.0f, 1.3f}) c.push_back(at::tensor({v}, at::kFloat));
  return c;
}
constexpr int kW = 0, kB = 1, kThree = 2, kZero = 3, kSix = 4, kW2 = 5, kInput = 6;

Node node(Op op, std::vector<int> inputs, int output) {
  Node n;
  n.op = op, n.inputs = std::move(inputs), n.output = output;
  return n;
}

// input → ·w → +b (slot 8) → hard-swish as ONNX spells it (9..12) → ·w2 → relu (14).
std::vector<Node> affine_swish_relu() {
  return {node(Op::Mul, {kW, kInput}, 7), node(Op::Add, {7, kB}, 8),
          node(Op::Add, {8, kThree}, 9),  node(Op::Clip, {9, kZero, kSix}, 10),
          node(Op::Mul, {8, 10}, 11),     node(Op::Div, {11, kSix}, 12),
          node(Op::Mul, {12, kW2}, 13),   node(Op::Relu, {13}, 14)};
}

// The same ops as LibTorch runs them one node at a time.
at::Tensor unfused(const at::Tensor& x) {
  const std::vector<at::Tensor> c = constants();
  const at::Tensor a = at::add(at::mul(c[kW], x), c[kB]);
  const at::Tensor swish = at::div(at::mul(a, at::clamp(at::add(a, c[kThree]), 0.0, 6.0)), c[kSix]);
  return at::relu(at::mul(swish, c[kW2]));
}

}  // namespace

TEST_CASE("recognizer chains: affine, hard-swish and relu in one pass, bit for bit LibTorch's") {
  const std::vector<at::Tensor> c = constants();
  const std::vector<Chain> chains =
      docsift::recognize::find_chains(affine_swish_relu(), c, 15, kInput, 14);
  REQUIRE(chains.size() == 1);
  const Chain& chain = chains[0];
  CHECK(chain.nodes.size() == 8);
  CHECK(chain.input == kInput);
  CHECK(chain.output == 14);
  CHECK_FALSE(chain.in_place);  // the graph's input is never written over
  REQUIRE(chain.steps.size() == 5);
  CHECK(chain.steps[2].kind == Step::Kind::HardSwish);
  CHECK(chain.steps[4].kind == Step::Kind::Relu);
  // Values across hard-swish's bends (−3, 3) and beyond, in a layout of four dimensions.
  const at::Tensor x = at::linspace(-9.0, 9.0, 4 * 3 * 5 * 41, at::kFloat).reshape({4, 3, 5, 41});
  const at::Tensor expected = unfused(x);
  const at::Tensor got = docsift::recognize::run_chain(chain.steps, x, false);
  CHECK(at::equal(got, expected));
  CHECK(got.data_ptr() != x.data_ptr());
  // In place: into the input's own storage, unless something else still holds it.
  at::Tensor own = x.clone();
  const void* storage = own.data_ptr();
  const at::Tensor in_place = docsift::recognize::run_chain(chain.steps, std::move(own), true);
  CHECK(in_place.data_ptr() == storage);
  CHECK(at::equal(in_place, expected));
  // Handed over alone, but a view still shares its storage: written elsewhere. Under inference
  // mode, as the recognizer runs, a view keeps no reference to its base, only to the storage.
  const c10::InferenceMode inference;
  at::Tensor shared = x.clone();
  const at::Tensor view = shared.view({-1});
  const at::Tensor apart = docsift::recognize::run_chain(chain.steps, std::move(shared), true);
  CHECK(apart.data_ptr() != view.data_ptr());
  CHECK(at::equal(view, x.view({-1})));  // the view's data untouched
  CHECK(at::equal(apart, expected));
}

TEST_CASE("recognizer chains: a value read outside the chain ends it, and its input stays") {
  const std::vector<at::Tensor> c = constants();
  std::vector<Node> nodes = affine_swish_relu();
  // Node 8 also reads the affine's output (slot 8), and node 9 the graph's input again.
  nodes.push_back(node(Op::Sub, {8, kB}, 15));
  nodes.push_back(node(Op::Add, {kInput, 15}, 16));
  const std::vector<Chain> chains = docsift::recognize::find_chains(nodes, c, 17, kInput, 16);
  REQUIRE(chains.size() == 2);
  // The affine stops at slot 8, which the hard-swish and node 8 read.
  CHECK(chains[0].output == 8);
  CHECK(chains[0].steps.size() == 2);
  // Then hard-swish, ·w2 and relu from slot 8, which node 8 still needs: not in place.
  CHECK(chains[1].input == 8);
  CHECK(chains[1].output == 14);
  CHECK(chains[1].steps.size() == 3);
  CHECK_FALSE(chains[1].in_place);
  // A constant that is not one float (a [2] tensor) is no step.
  std::vector<at::Tensor> wide = c;
  wide[kW] = at::tensor({0.7f, 0.5f}, at::kFloat);
  const std::vector<Chain> none = docsift::recognize::find_chains(
      {node(Op::Mul, {kW, kInput}, 7), node(Op::Add, {7, kB}, 8)}, wide, 9, kInput, 8);
  CHECK(none.empty());
}
