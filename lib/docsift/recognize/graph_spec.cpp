#include "docsift/recognize/graph_spec.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::recognize {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNodes = 20'000;
constexpr std::size_t kMaxCharacters = 100'000;

struct OpInfo {
  const char* name;
  Op op;
  std::size_t min_inputs, max_inputs;
};
constexpr OpInfo kOps[] = {
    {"Add", Op::Add, 2, 2},
    {"Sub", Op::Sub, 2, 2},
    {"Mul", Op::Mul, 2, 2},
    {"Div", Op::Div, 2, 2},
    {"Pow", Op::Pow, 2, 2},
    {"Sqrt", Op::Sqrt, 1, 1},
    {"Relu", Op::Relu, 1, 1},
    {"Sigmoid", Op::Sigmoid, 1, 1},
    {"HardSigmoid", Op::HardSigmoid, 1, 1},
    {"Erf", Op::Erf, 1, 1},
    {"Gelu", Op::Gelu, 1, 1},
    {"Clip", Op::Clip, 1, 3},
    {"Conv", Op::Conv, 2, 3},
    {"BatchNormalization", Op::BatchNormalization, 5, 5},
    {"AveragePool", Op::AveragePool, 1, 1},
    {"MaxPool", Op::MaxPool, 1, 1},
    {"GlobalAveragePool", Op::GlobalAveragePool, 1, 1},
    {"MatMul", Op::MatMul, 2, 2},
    {"Transpose", Op::Transpose, 1, 1},
    {"Softmax", Op::Softmax, 1, 1},
    {"ReduceMean", Op::ReduceMean, 1, 1},
    {"Squeeze", Op::Squeeze, 1, 1},
    {"Unsqueeze", Op::Unsqueeze, 1, 1},
    {"Concat", Op::Concat, 1, 64},
    {"Reshape", Op::Reshape, 2, 2},
    {"Shape", Op::Shape, 1, 1},
    {"Cast", Op::Cast, 1, 1},
    {"Slice", Op::Slice, 3, 5},
};

// Conv's, AveragePool's and MaxPool's window: a 2-D kernel, the strides, dilations and pads ONNX
// defaults filled in, each of the kernel's rank and in range.
void complete_kernel(Attributes& a, const std::string& where) {
  const std::size_t n = a.kernel.size();
  if (n != 2) throw FileError(where + ": only 2-D kernels are supported");
  if (a.strides.empty()) a.strides.assign(n, 1);
  if (a.dilations.empty()) a.dilations.assign(n, 1);
  if (a.pads.empty()) a.pads.assign(2 * n, 0);
  if (a.strides.size() != n || a.dilations.size() != n || a.pads.size() != 2 * n) {
    throw FileError(where + ": strides, dilations or pads do not match the kernel's rank");
  }
  const auto positive = [](const std::vector<std::int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x > 0 && x <= 4096; });
  };
  const bool pads_ok =
      std::all_of(a.pads.begin(), a.pads.end(), [](std::int64_t x) { return x >= 0 && x <= 4096; });
  if (!positive(a.kernel) || !positive(a.strides) || !positive(a.dilations) || !pads_ok ||
      a.group < 1) {
    throw FileError(where + ": a kernel, stride, dilation, pad or group out of range");
  }
}

// One node's attributes as the op reads them; an attribute of the wrong type or an unknown one
// is refused (the converter writes only what ONNX gave, so a stranger means a foreign file).
Attributes read_attributes(const json& in, Op op, const std::string& where) {
  Attributes a;
  if (!in.is_object()) throw FileError(where + ": attributes is not an object");
  const auto ints = [&](const json& v, const std::string& key) {
    if (!v.is_array() || v.size() > 16)
      throw FileError(where + ": attribute " + key + " is not a list of at most 16 integers");
    std::vector<std::int64_t> out;
    for (const json& x : v) {
      if (!x.is_number_integer())
        throw FileError(where + ": attribute " + key + " holds a non-integer");
      out.push_back(x.get<std::int64_t>());
    }
    return out;
  };
  const auto one_int = [&](const json& v, const std::string& key) {
    if (!v.is_number_integer())
      throw FileError(where + ": attribute " + key + " is not an integer");
    return v.get<std::int64_t>();
  };
  const auto one_real = [&](const json& v, const std::string& key) {
    if (!v.is_number()) throw FileError(where + ": attribute " + key + " is not a number");
    return v.get<double>();
  };
  for (const auto& [key, v] : in.items()) {
    if (key == "kernel_shape")
      a.kernel = ints(v, key);
    else if (key == "strides")
      a.strides = ints(v, key);
    else if (key == "pads")
      a.pads = ints(v, key);
    else if (key == "dilations")
      a.dilations = ints(v, key);
    else if (key == "perm")
      a.perm = ints(v, key);
    else if (key == "axes")
      a.axes = ints(v, key);
    else if (key == "group")
      a.group = one_int(v, key);
    else if (key == "axis")
      a.axis = one_int(v, key);
    else if (key == "to")
      a.to = one_int(v, key);
    else if (key == "ceil_mode")
      a.ceil_mode = one_int(v, key);
    else if (key == "count_include_pad")
      a.count_include_pad = one_int(v, key);
    else if (key == "keepdims")
      a.keepdims = one_int(v, key);
    else if (key == "alpha")
      a.alpha = one_real(v, key);
    else if (key == "beta")
      a.beta = one_real(v, key);
    else if (key == "epsilon")
      a.epsilon = one_real(v, key);
    else if (key == "momentum" && op == Op::BatchNormalization)
      continue;  // training only
    else
      throw FileError(where + ": attribute " + key + " is not supported");
  }
  if (op == Op::Conv || op == Op::AveragePool || op == Op::MaxPool) complete_kernel(a, where);
  // Before opset 13 Unsqueeze's axes are an attribute, and it has no default.
  if (op == Op::Unsqueeze && a.axes.empty()) throw FileError(where + ": Unsqueeze without axes");
  if (op == Op::Cast && a.to != 1 && a.to != 6 && a.to != 7) {
    throw FileError(where + ": Cast to ONNX type " + std::to_string(a.to) +
                    " is not supported (float, int32, int64 are)");
  }
  return a;
}

// Value slots by name: the constants, the graph's input, and the outputs of the nodes read so far.
using SlotMap = std::map<std::string, int, std::less<>>;

// A recognizer.json unlike the converter's: names the file, says what is wrong and what to do.
FileError graph_error(const std::string& label, const std::string& what) {
  return FileError(label + ": " + what +
                   " (run scripts/setup.sh again to convert the recognizer afresh)");
}

// Node `i` of the graph in `label`, its inputs found in `slot`; its output takes the next slot
// (`slots`, counted on).
Node read_node(const json& n, std::size_t i, SlotMap& slot, int& slots, const std::string& label) {
  const auto fail = [&](const std::string& what) { return graph_error(label, what); };
  std::string where = "node " + std::to_string(i);
  if (!n.is_object() || !n.contains("op") || !n["op"].is_string()) throw fail(where + ": no op");
  const std::string& op = n["op"].get_ref<const std::string&>();
  where += " (" + op + ")";
  const OpInfo* info = nullptr;
  for (const OpInfo& o : kOps) {
    if (op == o.name) info = &o;
  }
  if (!info) throw fail(where + ": the op is not supported");
  const json& ins = n.value("inputs", json());
  const json& outs = n.value("outputs", json());
  if (!ins.is_array() || ins.size() < info->min_inputs || ins.size() > info->max_inputs) {
    throw fail(where + ": " + std::to_string(ins.is_array() ? ins.size() : 0) + " inputs");
  }
  if (!outs.is_array() || outs.size() != 1 || !outs[0].is_string())
    throw fail(where + ": not exactly one output");
  Node node;
  node.op = info->op;
  for (const json& name : ins) {
    if (!name.is_string()) throw fail(where + ": an input name that is not a string");
    const std::string& s = name.get_ref<const std::string&>();
    if (s.empty()) {  // an optional input left out
      if (node.inputs.empty()) throw fail(where + ": its first input left out");
      node.inputs.push_back(-1);
      continue;
    }
    const auto it = slot.find(s);
    if (it == slot.end()) throw fail(where + ": input " + s + " is used before it is made");
    node.inputs.push_back(it->second);
  }
  const std::string& made = outs[0].get_ref<const std::string&>();
  if (made.empty() || slot.count(made)) throw fail(where + ": output " + made + " is made twice");
  node.output = slot[made] = slots++;
  try {
    node.a = read_attributes(n.value("attributes", json::object()), node.op, label + ": " + where);
  } catch (const FileError& e) {
    throw FileError(std::string(e.what()) +
                    " (run scripts/setup.sh again to convert the recognizer afresh)");
  }
  return node;
}

}  // namespace

GraphSpec parse_graph_spec(std::string_view text, const std::string& label,
                           const std::vector<std::string>& constants) {
  if (text.size() > kMaxGraphJsonBytes)
    throw FileError(label + ": larger than " + std::to_string(kMaxGraphJsonBytes >> 20) +
                    " MiB; not a recognizer graph");
  const json spec = parse_json_strict(text, label, 8);
  const auto fail = [&](const std::string& what) { return graph_error(label, what); };
  GraphSpec out;
  if (!spec.is_object() || spec.value("format", json()) != "docsift-onnx-graph" ||
      spec.value("version", json()) != 1) {
    throw fail("not a docsift recognizer graph of version 1");
  }
  for (const char* key : {"input", "output"}) {
    if (!spec.contains(key) || !spec[key].is_string())
      throw fail(std::string("no ") + key + " name");
  }
  if (!spec.contains("characters") || !spec["characters"].is_array() ||
      spec["characters"].empty() || spec["characters"].size() > kMaxCharacters) {
    throw fail("no list of characters");
  }
  for (const json& c : spec["characters"]) {
    if (!c.is_string() || c.get_ref<const std::string&>().empty() ||
        c.get_ref<const std::string&>().size() > 16) {
      throw fail("a character that is not a short string");
    }
    out.characters.push_back(c.get<std::string>());
  }
  SlotMap slot;
  for (const std::string& name : constants) {
    if (!slot.emplace(name, static_cast<int>(slot.size())).second)
      throw fail("constant " + name + " named twice");
  }
  out.slots = static_cast<int>(constants.size());
  const std::string& input = spec["input"].get_ref<const std::string&>();
  if (slot.count(input)) throw fail("the input " + input + " is also a constant");
  out.input = slot[input] = out.slots++;

  const json& nodes = spec.value("nodes", json());
  if (!nodes.is_array() || nodes.empty() || nodes.size() > kMaxNodes)
    throw fail("no list of nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    out.nodes.push_back(read_node(nodes[i], i, slot, out.slots, label));
  const std::string& output = spec["output"].get_ref<const std::string&>();
  const auto it = slot.find(output);
  if (it == slot.end() || it->second <= out.input)
    throw fail("the output " + output + " is never made");
  out.output = it->second;
  return out;
}

}  // namespace docsift::recognize
