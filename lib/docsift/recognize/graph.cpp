#include "docsift/recognize/graph.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>

#include "docsift/device/vector_math.h"
#include "docsift/error.h"
#include "docsift/model/safetensors.h"
#include "docsift/recognize/graph_ops.h"
#include "docsift/strict_json.h"

namespace docsift::recognize {

bool cpu_runs_bfloat16() {
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

bool cpu_has_bfloat16() {
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
  __builtin_cpu_init();
  return cpu_runs_bfloat16() &&
         (__builtin_cpu_supports("amx-bf16") || __builtin_cpu_supports("avx512bf16"));
#else
  return false;
#endif
}

Graph::Graph(const std::filesystem::path& folder, bool fuse, Precision precision) {
  device::settle_vector_math();  // its erf and sqrt: the same values from page one
  if (precision == Precision::BFloat16 && !cpu_runs_bfloat16())
    throw Error(
        "recognizer: bfloat16 convolutions need a CPU with AVX-512 (BW, VL and DQ), which "
        "this one lacks; read in float32");
  const std::string json_path = (folder / "recognizer.json").string();
  const std::string text = read_text_file(json_path, kMaxGraphJsonBytes);
  const model::SafetensorsFile weights(folder / "recognizer.safetensors");
  std::vector<std::string> names;
  for (const model::TensorEntry& e : weights.header().tensors) {
    if (e.dtype != model::DType::F32 && e.dtype != model::DType::I64 &&
        e.dtype != model::DType::I32) {
      throw FileError(weights.path().string() + ": tensor " + e.name +
                      " is neither F32, I64 nor I32");
    }
    names.push_back(e.name);
    constants_.push_back(weights.view(e.name).clone());  // owned: the mapping closes with `weights`
  }
  GraphSpec spec = parse_graph_spec(text, json_path, names);
  characters_ = std::move(spec.characters);
  nodes_ = std::move(spec.nodes);
  input_ = spec.input, output_ = spec.output, slots_ = spec.slots;
  // A convolution's weight [out, in / group, kh, kw] laid out channels last, as its input is.
  for (const Node& n : nodes_) {
    if (n.op != Op::Conv || n.inputs.size() < 2) continue;
    const int w = n.inputs[1];
    if (w >= 0 && w < static_cast<int>(constants_.size()) &&
        constants_[static_cast<std::size_t>(w)].dim() == 4) {
      at::Tensor& weight = constants_[static_cast<std::size_t>(w)];
      weight = weight.contiguous(at::MemoryFormat::ChannelsLast);
    }
  }
  // The dense convolutions' weights in bfloat16 where asked and oneDNN is there to run them; an
  // uneven pad (conv()'s constant_pad_nd) keeps the float32 path.
  half_weight_.resize(nodes_.size()), half_bias_.resize(nodes_.size());
  for (std::size_t i = 0; precision == Precision::BFloat16 && at::hasMKLDNN() && i < nodes_.size();
       ++i) {
    const Node& n = nodes_[i];
    const auto constant = [&](std::size_t k) {
      return k < n.inputs.size() && n.inputs[k] >= 0 &&
             n.inputs[k] < static_cast<int>(constants_.size());
    };
    const bool biased = n.inputs.size() > 2 && n.inputs[2] >= 0;
    if (n.op != Op::Conv || n.a.group != 1 || n.a.pads[0] != n.a.pads[2] ||
        n.a.pads[1] != n.a.pads[3] || !constant(1) || (biased && !constant(2)))
      continue;
    half_weight_[i] = constants_[static_cast<std::size_t>(n.inputs[1])]
                          .to(at::kBFloat16)
                          .contiguous(at::MemoryFormat::ChannelsLast);
    if (biased) half_bias_[i] = constants_[static_cast<std::size_t>(n.inputs[2])].to(at::kBFloat16);
  }
  // A chain runs where its first node is (chain.h): its nodes read only its input, the constants
  // and each other's outputs, all there by then.
  std::vector<std::size_t> at(nodes_.size());
  std::iota(at.begin(), at.end(), std::size_t{0});
  chain_of_.assign(nodes_.size(), kNotInChain);
  if (fuse) chains_ = find_chains(nodes_, constants_, slots_, input_, output_);
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    for (std::size_t k : chains_[c].nodes) chain_of_[k] = kInChain, at[k] = chains_[c].first;
    chain_of_[chains_[c].first] = static_cast<int>(c);
  }
  last_use_.assign(static_cast<std::size_t>(slots_), -1);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (int s : nodes_[i].inputs) {
      if (s >= 0)
        last_use_[static_cast<std::size_t>(s)] =
            std::max(last_use_[static_cast<std::size_t>(s)], static_cast<int>(at[i]));
    }
  }
}

std::size_t Graph::fused_nodes() const {
  std::size_t n = 0;
  for (const Chain& c : chains_) n += c.nodes.size();
  return n;
}

std::size_t Graph::bfloat16_nodes() const {
  return static_cast<std::size_t>(std::count_if(half_weight_.begin(), half_weight_.end(),
                                                [](const at::Tensor& w) { return w.defined(); }));
}

at::Tensor Graph::run(const at::Tensor& input) const {
  if (input.dim() != 4 || input.scalar_type() != at::kFloat) {
    throw Error("recognizer: expected a float tensor [batch, 3, height, width]");
  }
  std::vector<at::Tensor> values(static_cast<std::size_t>(slots_));
  const auto value = [&](int s) -> const at::Tensor* {
    if (s < 0) return nullptr;
    return s < static_cast<int>(constants_.size()) ? &constants_[static_cast<std::size_t>(s)]
                                                   : &values[static_cast<std::size_t>(s)];
  };
  values[static_cast<std::size_t>(input_)] = input;
  std::vector<const at::Tensor*> in;
  const auto run_one = [&](std::size_t i) {
    const Node& n = nodes_[i];
    in.clear();
    for (int s : n.inputs) in.push_back(value(s));
    try {
      values[static_cast<std::size_t>(n.output)] =
          half_weight_[i].defined() && in[0]->scalar_type() == at::kFloat
              ? half_conv(*in[0], half_weight_[i], half_bias_[i], n.a)
              : run_node(n, in);
    } catch (const c10::Error& e) {
      throw Error("recognizer: node " + std::to_string(i) +
                  " failed: " + e.what_without_backtrace());
    } catch (const Error& e) {
      throw Error("recognizer: node " + std::to_string(i) + ": " + e.what());
    }
  };
  // A value no later node reads is dropped at once: memory stays at the widest layer's.
  const auto drop_read = [&](std::size_t i, int s) {
    if (s >= static_cast<int>(constants_.size()) && s != output_ &&
        last_use_[static_cast<std::size_t>(s)] == static_cast<int>(i)) {
      values[static_cast<std::size_t>(s)] = at::Tensor();
    }
  };
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const int chain = chain_of_[i];
    if (chain == kInChain) continue;  // run with its chain's first node
    if (chain == kNotInChain) {
      run_one(i);
      for (int s : nodes_[i].inputs) drop_read(i, s);
      continue;
    }
    const Chain& c = chains_[static_cast<std::size_t>(chain)];
    at::Tensor& x = values[static_cast<std::size_t>(c.input)];
    if (x.scalar_type() == at::kFloat && x.dim() >= 1) {
      values[static_cast<std::size_t>(c.output)] =
          run_chain(c.steps, c.in_place ? std::move(x) : x, c.in_place);
    } else {  // a value the steps were not written for: the nodes one by one
      for (std::size_t k : c.nodes) run_one(k);
    }
    for (std::size_t k : c.nodes) {
      for (int s : nodes_[k].inputs) drop_read(i, s);
    }
  }
  return values[static_cast<std::size_t>(output_)];
}

}  // namespace docsift::recognize
