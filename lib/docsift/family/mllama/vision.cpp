#include "docsift/family/mllama/vision.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/stack.h>

#include <algorithm>
#include <set>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/model/blocks.h"
#include "docsift/model/weights.h"

namespace docsift::family::mllama {

using namespace docsift::model;  // the shared blocks (model/) this family is built from

MllamaVisionEncoder::MllamaVisionEncoder(WeightLoader& load, const MllamaVisionConfig& c,
                                         const std::string& prefix)
    : config_(c) {
  const int64_t d = c.hidden, k = c.max_num_tiles, p = c.tokens_per_tile();
  const int64_t ids = static_cast<int64_t>(c.aspect_ratios.size()) + 1;
  patch_w = load.take(prefix + "patch_embedding.weight", {d, 3, c.patch_size, c.patch_size});
  class_embedding = load.take(prefix + "class_embedding", {d});
  position = load.take(prefix + "gated_positional_embedding.embedding", {p, d});
  position_gate = load.take(prefix + "gated_positional_embedding.gate", {1});
  tile_position =
      load.take(prefix + "gated_positional_embedding.tile_embedding.weight", {ids, k * p * d});
  pre_tile = load.take(prefix + "pre_tile_positional_embedding.embedding.weight", {ids, k * d});
  pre_tile_gate = load.take(prefix + "pre_tile_positional_embedding.gate", {1});
  post_tile = load.take(prefix + "post_tile_positional_embedding.embedding.weight", {ids, k * d});
  post_tile_gate = load.take(prefix + "post_tile_positional_embedding.gate", {1});
  pre_norm_w = load.take(prefix + "layernorm_pre.weight", {d});
  pre_norm_b = load.take(prefix + "layernorm_pre.bias", {d});
  post_norm_w = load.take(prefix + "layernorm_post.weight", {d});
  post_norm_b = load.take(prefix + "layernorm_post.bias", {d});
  const auto load_layers = [&](const std::string& stack, int64_t count, bool gated) {
    std::vector<Layer> layers;
    for (int64_t i = 0; i < count; ++i) {
      const std::string n = prefix + stack + ".layers." + std::to_string(i) + ".";
      Layer l;
      l.norm1_w = load.take(n + "input_layernorm.weight", {d});
      l.norm1_b = load.take(n + "input_layernorm.bias", {d});
      l.norm2_w = load.take(n + "post_attention_layernorm.weight", {d});
      l.norm2_b = load.take(n + "post_attention_layernorm.bias", {d});
      l.q = load.take(n + "self_attn.q_proj.weight", {d, d});
      l.k = load.take(n + "self_attn.k_proj.weight", {d, d});
      l.v = load.take(n + "self_attn.v_proj.weight", {d, d});
      l.o = load.take(n + "self_attn.o_proj.weight", {d, d});
      l.fc1_w = load.take(n + "mlp.fc1.weight", {c.intermediate, d});
      l.fc1_b = load.take(n + "mlp.fc1.bias", {c.intermediate});
      l.fc2_w = load.take(n + "mlp.fc2.weight", {d, c.intermediate});
      l.fc2_b = load.take(n + "mlp.fc2.bias", {d});
      if (gated) {
        l.gate_attn = load.take(n + "gate_attn", {1});
        l.gate_ffn = load.take(n + "gate_ffn", {1});
      }
      layers.push_back(std::move(l));
    }
    return layers;
  };
  local_ = load_layers("transformer", c.layers, /*gated=*/false);
  global_ = load_layers("global_transformer", c.global_layers, /*gated=*/true);
}

std::size_t MllamaVisionEncoder::parameter_bytes() const {
  std::size_t total = 0;
  const auto add = [&](const at::Tensor& t) { total += t.defined() ? t.nbytes() : 0; };
  for (const at::Tensor* t : {&patch_w, &class_embedding, &position, &position_gate, &tile_position,
                              &pre_tile, &pre_tile_gate, &post_tile, &post_tile_gate, &pre_norm_w,
                              &pre_norm_b, &post_norm_w, &post_norm_b}) {
    add(*t);
  }
  for (const auto* stack : {&local_, &global_}) {
    for (const Layer& l : *stack) {
      for (const at::Tensor* t :
           {&l.norm1_w, &l.norm1_b, &l.norm2_w, &l.norm2_b, &l.q, &l.k, &l.v, &l.o, &l.fc1_w,
            &l.fc1_b, &l.fc2_w, &l.fc2_b, &l.gate_attn, &l.gate_ffn}) {
        add(*t);
      }
    }
  }
  return total;
}

at::Tensor MllamaVisionEncoder::layer(const Layer& l, const at::Tensor& x, const at::Tensor& real,
                                      const at::Tensor& pad) const {
  const int64_t n = x.size(1), d = config_.hidden, heads = config_.heads, hd = d / heads;
  const at::Tensor h = layer_norm(x, l.norm1_w, l.norm1_b, config_.norm_eps);
  // [1, N, D] → [1, heads, N, hd]
  const auto split = [&](const at::Tensor& w) {
    return linear(h, w).view({1, n, heads, hd}).transpose(1, 2);
  };
  const at::Tensor q = split(l.q), k = split(l.k), v = split(l.v);
  // The reference's mask blocks key j for query i only when both are padding (the 7 pad tokens of
  // every tile, and every token of an unused tile slot): real queries see every key, padding
  // queries see the real keys. Two unmasked attentions give exactly that, and unmasked SDPA runs
  // the flash / memory-efficient kernels, so the [heads, N, N] scores (2.6 GB in float32 for four
  // 1608-token tiles) never exist.
  at::Tensor a = at::empty_like(q);
  a.index_copy_(2, real, at::scaled_dot_product_attention(q.index_select(2, real), k, v));
  a.index_copy_(2, pad,
                at::scaled_dot_product_attention(q.index_select(2, pad), k.index_select(2, real),
                                                 v.index_select(2, real)));
  at::Tensor attn = linear(a.transpose(1, 2).reshape({1, n, d}), l.o);
  if (l.gate_attn.defined()) attn = attn.mul(l.gate_attn.tanh());
  const at::Tensor after = x.add(attn);
  at::Tensor mlp = linear(
      at::gelu(linear(layer_norm(after, l.norm2_w, l.norm2_b, config_.norm_eps), l.fc1_w, l.fc1_b)),
      l.fc2_w, l.fc2_b);
  if (l.gate_ffn.defined()) mlp = mlp.mul(l.gate_ffn.tanh());
  return after.add(mlp);
}

at::Tensor MllamaVisionEncoder::forward(const at::Tensor& pixel_values, int64_t tiles,
                                        int64_t aspect_ratio_id) const {
  const MllamaVisionConfig& c = config_;
  const int64_t k = c.max_num_tiles, d = c.hidden, p = c.tokens_per_tile(),
                p8 = c.padded_tokens_per_tile();
  if (pixel_values.dim() != 4 || pixel_values.size(0) != k ||
      pixel_values.size(2) != c.image_size || pixel_values.size(3) != c.image_size) {
    throw Error("Llama 3.2 Vision takes pixel values [" + std::to_string(k) + ", 3, " +
                std::to_string(c.image_size) + ", " + std::to_string(c.image_size) + "]");
  }
  if (tiles < 1 || tiles > k || aspect_ratio_id < 1 ||
      aspect_ratio_id > static_cast<int64_t>(c.aspect_ratios.size())) {
    throw Error("Llama 3.2 Vision: " + std::to_string(tiles) + " tiles with aspect ratio id " +
                std::to_string(aspect_ratio_id) + " is outside the model's arrangements");
  }
  const at::Tensor pixels = pixel_values.to(patch_w.device(), patch_w.scalar_type());
  // Patches: [K, 3, S, S] → [K, D, g, g] → [K, g², D]; the pre-tile embedding of the arrangement
  // is added to every patch of each tile slot.
  at::Tensor x =
      at::conv2d(pixels, patch_w, {}, {c.patch_size, c.patch_size}).flatten(2).transpose(1, 2);
  x = x.add(pre_tile.select(0, aspect_ratio_id).view({k, 1, d}).mul(pre_tile_gate.tanh()));
  x = at::cat({class_embedding.view({1, 1, d}).expand({k, 1, d}), x}, 1);  // [K, P, D], CLS first
  // Gated positions: (1 − tanh g)·position for every tile, tanh g·tile_position of the arrangement.
  x = x.add(position.view({1, p, d}).mul(position_gate.tanh().neg().add(1)));
  x = x.add(tile_position.select(0, aspect_ratio_id).view({k, p, d}).mul(position_gate.tanh()));
  x = layer_norm(x, pre_norm_w, pre_norm_b, 1e-5);
  // Pad each tile to P8 tokens (zeros, after the norm) and lay the tiles end to end: [1, K·P8, D].
  x = at::constant_pad_nd(x, {0, 0, 0, p8 - p}, 0).reshape({1, k * p8, d});
  // Padding positions: the pad tokens of every tile and all of an unused tile.
  const at::Tensor position_in_tile =
      at::arange(k * p8, at::TensorOptions().dtype(at::kLong)).remainder(p8);
  const at::Tensor is_pad =
      position_in_tile.ge(p).logical_or(at::arange(k * p8, at::kLong).ge(tiles * p8));
  const at::Tensor real = at::nonzero(is_pad.logical_not()).squeeze(1).to(x.device());
  const at::Tensor pad = at::nonzero(is_pad).squeeze(1).to(x.device());

  // Local layers; the INPUT of each listed layer is kept (Meta's convention, the one the weights
  // were trained with; transformers 5.x keeps the output instead).
  // kept[j]: the input of local layer intermediate_layers[j], in the list's order.
  std::vector<at::Tensor> kept(c.intermediate_layers.size());
  for (int64_t i = 0; i < c.layers; ++i) {
    const auto slot = std::find(c.intermediate_layers.begin(), c.intermediate_layers.end(), i);
    if (slot != c.intermediate_layers.end()) kept[slot - c.intermediate_layers.begin()] = x;
    x = layer(local_[static_cast<std::size_t>(i)], x, real, pad);
  }
  for (at::Tensor& t : kept) t = t.view({k, p8, d}).slice(1, 0, p);
  x = layer_norm(x, post_norm_w, post_norm_b, 1e-5).view({k, p8, d});
  x = x.add(post_tile.select(0, aspect_ratio_id).view({k, 1, d}).mul(post_tile_gate.tanh()))
          .view({1, k * p8, d});
  for (const Layer& l : global_) x = layer(l, x, real, pad);
  const at::Tensor final_states = x.view({k, p8, d}).slice(1, 0, p);  // [K, P, D]
  if (kept.empty()) return final_states;
  // [K, P, D, L] → [K, P, D·L]: channel d·L + l, interleaved.
  const at::Tensor intermediate =
      at::stack(kept, -1).reshape({k, p, d * static_cast<int64_t>(kept.size())});
  return at::cat({final_states, intermediate}, -1);
}

}  // namespace docsift::family::mllama
