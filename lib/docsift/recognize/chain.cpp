#include "docsift/recognize/chain.h"

#include <ATen/ops/empty_like.h>
#include <c10/core/ScalarType.h>

#include <algorithm>
#include <optional>

namespace docsift::recognize {
namespace {

// Who reads each slot: the nodes (one entry per input position), and the graph's output.
struct Readers {
  std::vector<std::vector<std::size_t>> nodes;
  std::vector<int> count;
};

Readers readers_of(const std::vector<Node>& nodes, int slots, int graph_output) {
  Readers r{std::vector<std::vector<std::size_t>>(static_cast<std::size_t>(slots)),
            std::vector<int>(static_cast<std::size_t>(slots), 0)};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (int s : nodes[i].inputs) {
      if (s < 0) continue;
      r.nodes[static_cast<std::size_t>(s)].push_back(i);
      ++r.count[static_cast<std::size_t>(s)];
    }
  }
  ++r.count[static_cast<std::size_t>(graph_output)];
  return r;
}

class Finder {
 public:
  Finder(const std::vector<Node>& nodes, const std::vector<at::Tensor>& constants, int slots,
         int graph_output)
      : nodes_(nodes),
        constants_(constants),
        readers_(readers_of(nodes, slots, graph_output)),
        graph_output_(graph_output) {}

  // One float32 value held by a constant of at most one dimension (a [1] or 0-d tensor: it
  // broadcasts over any value of one dimension or more without changing its shape).
  std::optional<float> scalar(int slot) const {
    if (slot < 0 || slot >= static_cast<int>(constants_.size())) return std::nullopt;
    const at::Tensor& t = constants_[static_cast<std::size_t>(slot)];
    if (t.scalar_type() != at::kFloat || t.numel() != 1 || t.dim() > 1) return std::nullopt;
    return t.item<float>();
  }

  // The one node reading `slot`, when nothing else does.
  std::optional<std::size_t> only_reader(int slot) const {
    const auto s = static_cast<std::size_t>(slot);
    if (readers_.count[s] != 1 || readers_.nodes[s].size() != 1) return std::nullopt;
    return readers_.nodes[s][0];
  }
  int reads(int slot) const { return readers_.count[static_cast<std::size_t>(slot)]; }

  // Node i as one step on `x`: x op constant (Add and Mul either way round), Clip between
  // constants, Relu.
  std::optional<Step> step(std::size_t i, int x) const {
    const Node& n = nodes_[i];
    const auto& in = n.inputs;
    using K = Step::Kind;
    switch (n.op) {
      case Op::Add:
      case Op::Mul: {
        if (in.size() != 2) return std::nullopt;
        const int other = in[0] == x ? in[1] : in[1] == x ? in[0] : -1;
        const std::optional<float> c = scalar(other);
        if (!c || other == x) return std::nullopt;
        return Step{n.op == Op::Add ? K::Add : K::Mul, *c};
      }
      case Op::Sub:
      case Op::Div: {
        if (in.size() != 2 || in[0] != x) return std::nullopt;
        const std::optional<float> c = scalar(in[1]);
        if (!c) return std::nullopt;
        return Step{n.op == Op::Sub ? K::Sub : K::Div, *c};
      }
      case Op::Clip: {
        if (in.empty() || in[0] != x) return std::nullopt;
        Step s{K::Clip};
        if (in.size() > 1 && in[1] >= 0) {
          const std::optional<float> lo = scalar(in[1]);
          if (!lo) return std::nullopt;
          s.lo = *lo;
        }
        if (in.size() > 2 && in[2] >= 0) {
          const std::optional<float> hi = scalar(in[2]);
          if (!hi) return std::nullopt;
          s.hi = *hi;
        }
        return s;
      }
      case Op::Relu:
        return in.size() == 1 && in[0] == x ? std::optional<Step>(Step{K::Relu}) : std::nullopt;
      default:
        return std::nullopt;
    }
  }

  // Nodes i .. as ONNX spells hard-swish on `x`: t1 = x + a; t2 = Clip(t1, lo, hi); t3 = x · t2;
  // out = t3 / b, each of t1 .. t3 read by the next alone. The nodes, in order, with the step.
  std::optional<std::pair<Step, std::vector<std::size_t>>> hard_swish(std::size_t i, int x) const {
    const std::optional<Step> add = step(i, x);
    if (!add || add->kind != Step::Kind::Add) return std::nullopt;
    const std::optional<std::size_t> clip = only_reader(nodes_[i].output);
    if (!clip) return std::nullopt;
    const std::optional<Step> bounds = step(*clip, nodes_[i].output);
    if (!bounds || bounds->kind != Step::Kind::Clip) return std::nullopt;
    const std::optional<std::size_t> mul = only_reader(nodes_[*clip].output);
    if (!mul) return std::nullopt;
    const Node& m = nodes_[*mul];
    const int t2 = nodes_[*clip].output;
    if (m.op != Op::Mul || m.inputs.size() != 2 ||
        !((m.inputs[0] == x && m.inputs[1] == t2) || (m.inputs[0] == t2 && m.inputs[1] == x)))
      return std::nullopt;
    const std::optional<std::size_t> div = only_reader(m.output);
    if (!div) return std::nullopt;
    const std::optional<Step> by = step(*div, m.output);
    if (!by || by->kind != Step::Kind::Div) return std::nullopt;
    Step s{Step::Kind::HardSwish, add->a, bounds->lo, bounds->hi, by->a};
    return std::pair{s, std::vector<std::size_t>{i, *clip, *mul, *div}};
  }

  // How many times nodes `taken` read `slot`.
  int reads_by(const std::vector<std::size_t>& taken, int slot) const {
    int n = 0;
    for (std::size_t k : taken) {
      for (int s : nodes_[k].inputs) n += s == slot ? 1 : 0;
    }
    return n;
  }

  // The longest chain from node `first` on its value `x`.
  Chain chain_from(std::size_t first, int x) const {
    Chain c{first, {}, x, x, false, {}};
    std::size_t at = first;
    int reads_of_x = 0;  // reads of x by the chain's own nodes
    while (true) {
      const int value = c.output;
      std::vector<std::size_t> taken;
      Step next;
      if (const auto hs = hard_swish(at, value)) {
        next = hs->first, taken = hs->second;
      } else if (const std::optional<Step> s = step(at, value)) {
        next = *s, taken = {at};
      } else {
        break;
      }
      // A value between two steps is read by the next step alone (hard-swish reads it twice).
      if (value != x && reads_by(taken, value) != reads(value)) break;
      c.steps.push_back(next);
      reads_of_x += reads_by(taken, x);
      c.nodes.insert(c.nodes.end(), taken.begin(), taken.end());
      c.output = nodes_[taken.back()].output;
      const auto& readers = readers_.nodes[static_cast<std::size_t>(c.output)];
      if (readers.empty() || c.output == graph_output_) break;
      at = *std::min_element(readers.begin(), readers.end());
    }
    c.in_place = reads_of_x == reads(x);
    return c;
  }

 private:
  const std::vector<Node>& nodes_;
  const std::vector<at::Tensor>& constants_;
  Readers readers_;
  int graph_output_;
};

}  // namespace

std::vector<Chain> find_chains(const std::vector<Node>& nodes,
                               const std::vector<at::Tensor>& constants, int slots, int graph_input,
                               int graph_output) {
  const Finder finder(nodes, constants, slots, graph_output);
  std::vector<bool> taken(nodes.size(), false);
  std::vector<Chain> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (taken[i]) continue;
    // The value the chain would start from: the node's one input that is not a constant.
    int x = -1;
    for (int s : nodes[i].inputs) {
      if (s >= static_cast<int>(constants.size())) x = x < 0 ? s : -2;
    }
    if (x < 0) continue;
    Chain c = finder.chain_from(i, x);
    if (c.nodes.size() < 2) continue;
    if (x == graph_input) c.in_place = false;
    for (std::size_t k : c.nodes) taken[k] = true;
    out.push_back(std::move(c));
  }
  return out;
}

at::Tensor run_chain(const std::vector<Step>& steps, at::Tensor in, bool in_place) {
  // A dense tensor's elements are its storage's, in whatever order: each step is elementwise.
  if (!in.is_non_overlapping_and_dense()) in = in.contiguous();
  const bool own = in_place && in.use_count() == 1 && in.storage().use_count() == 1;
  at::Tensor out = own ? in : at::empty_like(in);
  run_steps(steps, in.const_data_ptr<float>(), out.mutable_data_ptr<float>(),
            static_cast<std::size_t>(in.numel()));
  return out;
}

}  // namespace docsift::recognize
