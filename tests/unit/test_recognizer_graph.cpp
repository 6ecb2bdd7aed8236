// The recognizer's graph (lib/docsift/recognize/graph.h) on a graph written here, for the ops that
// PaddleOCR's later recognizers add to PP-OCRv4's (PP-OCRv6 small's: bench/ocr/README.md) and that
// the shipped model's parity test therefore never runs: MaxPool with the uneven pads the converter
// writes for auto_pad SAME_UPPER, docsift's one-node Gelu, Erf, and Unsqueeze with its axes.
#include <ATen/ops/allclose.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/erf.h>
#include <ATen/ops/full.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "docsift/error.h"
#include "docsift/recognize/graph.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace {

// x [1, 2, 3, 4] → MaxPool 2x2, stride 1, pads [top 0, left 0, bottom 1, right 1] (SAME_UPPER) →
// Gelu → Erf → Squeeze axis 0 → Unsqueeze axis 0 (back to [1, 2, 3, 4]).
const char* kGraph = R"({"format":"docsift-onnx-graph","version":1,"input":"x","output":"y",
  "characters":["a"],"nodes":[
  {"op":"MaxPool","inputs":["x"],"outputs":["p"],
   "attributes":{"kernel_shape":[2,2],"strides":[1,1],"pads":[0,0,1,1],"ceil_mode":0}},
  {"op":"Gelu","inputs":["p"],"outputs":["g"]},
  {"op":"Erf","inputs":["g"],"outputs":["e"]},
  {"op":"Squeeze","inputs":["e"],"outputs":["s"],"attributes":{"axes":[0]}},
  {"op":"Unsqueeze","inputs":["s"],"outputs":["y"],"attributes":{"axes":[0]}}]})";

void write_graph(const std::filesystem::path& dir, const std::string& json,
                 const docsift::testing::NamedTensors& constants = {
                     {"unused", at::zeros({1}, at::kFloat)}}) {
  std::ofstream(dir / "recognizer.json") << json;
  docsift::testing::write_safetensors(dir / "recognizer.safetensors", constants);
}

}  // namespace

TEST_CASE(
    "recognizer graph: MaxPool's uneven pads, Gelu, Erf and Unsqueeze as LibTorch computes them") {
  c10::InferenceMode guard;
  docsift::testing::TempDir dir;
  write_graph(dir.path(), kGraph);
  const docsift::recognize::Graph graph(dir.path());
  // Negative values too: a pad taken as 0 instead of -inf would win the window at the edges.
  const at::Tensor x = at::linspace(-3.0, 1.5, 24, at::kFloat).reshape({1, 2, 3, 4});
  const at::Tensor padded =
      at::constant_pad_nd(x, {0, 1, 0, 1}, -std::numeric_limits<double>::infinity());
  const at::Tensor expected = at::erf(at::gelu(at::max_pool2d(padded, {2, 2}, {1, 1})));
  const at::Tensor y = graph.run(x);
  REQUIRE(y.sizes() == x.sizes());
  CHECK(at::equal(y, expected));
  // The bottom-right window holds one value and three pads: it is that value's, not a pad's.
  // Near, not equal: gelu on these two strided elements takes another of LibTorch's vector paths
  // than on the whole tensor, which may round the last bit otherwise on some CPUs (an AMD EPYC
  // without AVX-512 differed by 1.5e-8); a pad's would be NaN (erf of gelu(-inf)).
  const at::Tensor corner = x.select(2, 2).select(2, 3);  // [1, 2]
  CHECK(at::allclose(y.select(2, 2).select(2, 3), at::erf(at::gelu(corner)), 1e-6, 1e-7));
}

TEST_CASE("recognizer graph: the one Gelu node computes the exporter's five nodes it replaces") {
  // scripts/convert_ppocr.py's fold_gelu: x · (erf(x / √2) + 1) · 0.5 becomes one Gelu node; the
  // two differ only in rounding (LibTorch's gelu multiplies by 1/√2 where the exporter divides).
  c10::InferenceMode guard;
  docsift::testing::TempDir folded, exported;
  write_graph(folded.path(), R"({"format":"docsift-onnx-graph","version":1,"input":"x",
    "output":"y","characters":["a"],"nodes":[{"op":"Gelu","inputs":["x"],"outputs":["y"]}]})");
  write_graph(exported.path(), R"({"format":"docsift-onnx-graph","version":1,"input":"x",
    "output":"y","characters":["a"],"nodes":[
    {"op":"Div","inputs":["x","sqrt2"],"outputs":["d"]},
    {"op":"Erf","inputs":["d"],"outputs":["e"]},
    {"op":"Add","inputs":["e","one"],"outputs":["a"]},
    {"op":"Mul","inputs":["x","a"],"outputs":["m"]},
    {"op":"Mul","inputs":["m","half"],"outputs":["y"]}]})",
              {{"sqrt2", at::full({1}, std::sqrt(2.0), at::kFloat)},
               {"one", at::full({1}, 1.0, at::kFloat)},
               {"half", at::full({1}, 0.5, at::kFloat)}});
  const at::Tensor x = at::linspace(-6.0, 6.0, 240, at::kFloat).reshape({1, 2, 10, 12});
  const at::Tensor a = docsift::recognize::Graph(folded.path()).run(x);
  const at::Tensor b = docsift::recognize::Graph(exported.path()).run(x);
  REQUIRE(a.sizes() == b.sizes());
  CHECK(at::sub(a, b).abs().max().item<double>() < 1e-6);
  CHECK(at::sub(a, x).abs().max().item<double>() > 0.1);  // not the identity: gelu(-1) ≈ -0.16
}

TEST_CASE("recognizer graph: an Unsqueeze without axes is refused when the graph loads") {
  docsift::testing::TempDir dir;
  write_graph(dir.path(), R"({"format":"docsift-onnx-graph","version":1,"input":"x","output":"y",
    "characters":["a"],"nodes":[{"op":"Unsqueeze","inputs":["x"],"outputs":["y"]}]})");
  CHECK_THROWS_WITH_AS(docsift::recognize::Graph(dir.path()),
                       doctest::Contains("Unsqueeze without axes"), docsift::FileError);
}
