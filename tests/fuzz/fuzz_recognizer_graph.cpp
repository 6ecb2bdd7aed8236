// libFuzzer target: the second recognizer's graph file (recognizer.json, recognize/graph_spec.h),
// as read from a folder ocr.recognizer_model names. It must be refused with a docsift::FileError or
// give a graph whose every node reads only constants, the input or earlier nodes' outputs, and
// whose output is one of them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/error.h"
#include "docsift/recognize/graph_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::vector<std::string> constants = {"w", "b", "shape", "one"};
  try {
    const docsift::recognize::GraphSpec g =
        docsift::recognize::parse_graph_spec(text, "recognizer.json", constants);
    const int first_output = static_cast<int>(constants.size()) + 1;
    if (g.input != static_cast<int>(constants.size())) __builtin_trap();
    if (g.slots != first_output + static_cast<int>(g.nodes.size())) __builtin_trap();
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const auto& n = g.nodes[i];
      if (n.output != first_output + static_cast<int>(i)) __builtin_trap();
      for (int s : n.inputs) {
        if (s < -1 || s >= n.output) __builtin_trap();
      }
      if ((n.op == docsift::recognize::Op::Conv || n.op == docsift::recognize::Op::AveragePool) &&
          (n.a.kernel.size() != 2 || n.a.pads.size() != 4 || n.a.strides.size() != 2)) {
        __builtin_trap();
      }
    }
    if (g.output <= g.input || g.output >= g.slots || g.characters.empty()) __builtin_trap();
  } catch (const docsift::FileError&) {
  }
  return 0;
}
