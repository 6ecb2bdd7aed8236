#include "docsift/family/qwen3vl/model.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/stack.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "docsift/error.h"
#include "docsift/family/memory_shape.h"
#include "docsift/family/mrope_sequence.h"
#include "docsift/model/blocks.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/mrope.h"
#include "docsift/model/weights.h"

namespace docsift::family::qwen3vl {

using namespace docsift::model;  // the shared blocks (model/) this family is built from

namespace {

struct Norm {
  at::Tensor weight, bias;  // LayerNorm, in the dtype
  std::size_t nbytes() const { return weight.nbytes() + bias.nbytes(); }
};

// LayerNorm → view as [rows, in] → Linear → GELU (erf) → Linear. The merger norms each patch
// before the view ([N, h]); a DeepStack merger norms the merged patches after it ([M, 4h]).
struct Merger {
  Norm norm;
  LinearWeight fc1, fc2;  // [4h, 4h] and [H, 4h], with biases
  bool norm_after_view = false;
  std::size_t nbytes() const { return norm.nbytes() + fc1.nbytes() + fc2.nbytes(); }
  at::Tensor operator()(const at::Tensor& x, int64_t merged_width) const {
    const at::Tensor rows =
        norm_after_view ? layer_norm(x.reshape({-1, merged_width}), norm.weight, norm.bias, 1e-6)
                        : layer_norm(x, norm.weight, norm.bias, 1e-6).reshape({-1, merged_width});
    return linear(at::gelu(linear(rows, fc1)), fc2);
  }
};

}  // namespace

struct Qwen3VLModel::Weights {
  struct Block {
    Norm norm1, norm2;
    LinearWeight qkv, proj;  // qkv [3h, h] with bias: q, k, v head-major as the reference splits it
    LinearWeight fc1, fc2;   // the GELU MLP, with biases
  };
  // [h, 3·2·16·16]: the Conv3d kernel [h, 3, 2, 16, 16] as one matrix (stride = kernel), + bias.
  LinearWeight patch;
  at::Tensor positions;  // [side², h]
  std::vector<Block> blocks;
  Merger merger;
  std::vector<Merger> deepstack;  // one per VisionConfig::deepstack_blocks entry, in that order
  std::unique_ptr<Decoder> text;
};

namespace {

Norm load_norm(WeightLoader& load, const std::string& prefix, int64_t width) {
  return {load.take(prefix + "weight", {width}), load.take(prefix + "bias", {width})};
}

Merger load_merger(WeightLoader& load, const std::string& prefix, const VisionConfig& v,
                   int64_t out, bool norm_after_view) {
  const int64_t merged = v.hidden * v.merge_size * v.merge_size;
  Merger m;
  m.norm = load_norm(load, prefix + "norm.", norm_after_view ? merged : v.hidden);
  m.fc1 = load.take_linear(prefix + "linear_fc1.", merged, merged, /*bias=*/true, /*int8=*/false);
  m.fc2 = load.take_linear(prefix + "linear_fc2.", out, merged, /*bias=*/true, /*int8=*/false);
  m.norm_after_view = norm_after_view;
  return m;
}

// One axis of the bilinear, corners-aligned resampling of a `side`-long table to `size` places:
// for each place its two taps (clamped to the table) and their weights, float32 as the reference
// (transformers' vision_utils: src = index · (side − 1) / max(size − 1, 1)).
std::pair<at::Tensor, at::Tensor> axis_taps(const at::Tensor& index, int64_t size, int64_t side) {
  // index [P] float32 → taps [P, 2] int64, weights [P, 2] float32
  const at::Tensor src = index.mul(static_cast<double>(side - 1))
                             .div(static_cast<double>(std::max<int64_t>(size - 1, 1)));
  const at::Tensor floor = src.floor();
  const at::Tensor offsets = at::arange(2, index.options());
  const at::Tensor raw = floor.unsqueeze(1).add(offsets);
  const at::Tensor taps = raw.clamp(0, static_cast<double>(side - 1)).to(at::kLong);
  const at::Tensor weights = src.unsqueeze(1).sub(raw).abs().neg().add(1.0).clamp_min(0.0);
  return {taps, weights};
}

}  // namespace

memory::ModelShape memory_shape(const Qwen3VLConfig& c, std::int64_t max_pixels,
                                std::uint64_t parameters) {
  memory::ModelShape m = family::decoder_memory_shape(c.text, parameters);
  const VisionConfig& v = c.vision;
  m.vision_hidden = v.hidden;
  m.vision_heads = v.heads;
  m.vision_intermediate = v.intermediate;
  // One "tile": the whole image, every patch attending to every other.
  m.vision_tokens = max_pixels / (v.patch_size * v.patch_size);
  // The plan counts 3·image_size² pixel values a tile; the patches hold temporal_patch_size copies.
  m.image_size = static_cast<std::int64_t>(
      std::ceil(std::sqrt(static_cast<double>(max_pixels * v.temporal_patch_size))));
  // The DeepStack features wait through prefill beside the merged ones: k × M × H.
  const auto merged =
      static_cast<std::uint64_t>(max_pixels / (v.grid().factor() * v.grid().factor()));
  m.prefill_image_elements =
      v.deepstack_blocks.size() * merged * static_cast<std::uint64_t>(c.text.hidden);
  return m;
}

Qwen3VLModel::Qwen3VLModel(const Checkpoint& checkpoint, const Qwen3VLConfig& config,
                           const Numerics& numerics, at::Device device)
    : config_(config), numerics_(numerics), device_(device), w_(std::make_unique<Weights>()) {
  const VisionConfig& v = config_.vision;
  WeightLoader load(checkpoint, numerics.dtype, device);
  const QwenTowers n = qwen_towers(load);
  Weights& w = *w_;
  const int64_t h = v.hidden;
  const at::Tensor patch = load.take(n.vision + "patch_embed.proj.weight",
                                     {h, 3, v.temporal_patch_size, v.patch_size, v.patch_size});
  if (patch.defined()) w.patch.weight = patch.reshape({h, v.grid().patch_values()});
  w.patch.bias = load.take(n.vision + "patch_embed.proj.bias", {h});
  w.positions = load.take(n.vision + "pos_embed.weight", {v.position_side * v.position_side, h});
  for (int64_t i = 0; i < v.depth; ++i) {
    const std::string p = n.vision + "blocks." + std::to_string(i) + ".";
    Weights::Block b;
    b.norm1 = load_norm(load, p + "norm1.", h);
    b.norm2 = load_norm(load, p + "norm2.", h);
    b.qkv = load.take_linear(p + "attn.qkv.", 3 * h, h, /*bias=*/true, /*int8=*/false);
    b.proj = load.take_linear(p + "attn.proj.", h, h, /*bias=*/true, /*int8=*/false);
    b.fc1 = load.take_linear(p + "mlp.linear_fc1.", v.intermediate, h, /*bias=*/true, false);
    b.fc2 = load.take_linear(p + "mlp.linear_fc2.", h, v.intermediate, /*bias=*/true, false);
    w.blocks.push_back(std::move(b));
  }
  w.merger = load_merger(load, n.vision + "merger.", v, v.out_hidden, /*norm_after_view=*/false);
  for (std::size_t k = 0; k < v.deepstack_blocks.size(); ++k) {
    w.deepstack.push_back(load_merger(load,
                                      n.vision + "deepstack_merger_list." + std::to_string(k) + ".",
                                      v, v.out_hidden, /*norm_after_view=*/true));
  }
  w.text =
      std::make_unique<Decoder>(load, config_.text, n.language, "lm_head.weight", numerics, device);
  load.finish();
}

Qwen3VLModel::~Qwen3VLModel() = default;

std::size_t Qwen3VLModel::parameter_bytes() const {
  const Weights& w = *w_;
  std::size_t total =
      w.patch.nbytes() + w.positions.nbytes() + w.merger.nbytes() + w.text->parameter_bytes();
  for (const auto& b : w.blocks) {
    total += b.norm1.nbytes() + b.norm2.nbytes() + b.qkv.nbytes() + b.proj.nbytes() +
             b.fc1.nbytes() + b.fc2.nbytes();
  }
  for (const auto& m : w.deepstack) total += m.nbytes();
  return total;
}

std::size_t Qwen3VLModel::scratch_bytes() const { return w_->text->scratch_bytes(); }

const Decoder& Qwen3VLModel::decoder() const { return *w_->text; }

at::Tensor Qwen3VLModel::position_embeddings(int64_t grid_h, int64_t grid_w) const {
  const VisionConfig& v = config_.vision;
  const int64_t m = v.merge_size, side = v.position_side, n = grid_h * grid_w;
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device_);
  // (row, column) of each patch in merge-block order, as float32 indices.
  const at::Tensor i = at::arange(n, opts.dtype(at::kLong));
  const at::Tensor in_col = i.remainder(m), in_row = i.div(m, "floor").remainder(m);
  const at::Tensor block = i.div(m * m, "floor");
  const at::Tensor row = block.div(grid_w / m, "floor").mul(m).add(in_row).to(at::kFloat);
  const at::Tensor col = block.remainder(grid_w / m).mul(m).add(in_col).to(at::kFloat);
  const auto [h_taps, h_weights] = axis_taps(row, grid_h, side);  // [N, 2]
  const auto [w_taps, w_weights] = axis_taps(col, grid_w, side);
  // The 2 × 2 taps of each patch and their weights, [N, 4].
  const at::Tensor taps = h_taps.unsqueeze(2).mul(side).add(w_taps.unsqueeze(1)).reshape({n, 4});
  const at::Tensor weights = h_weights.unsqueeze(2).mul(w_weights.unsqueeze(1)).reshape({n, 4});
  // The table's rows times float32 weights sum in float32 (the reference's type promotion).
  const at::Tensor rows =
      w_->positions.index_select(0, taps.reshape({-1})).to(at::kFloat).view({n, 4, v.hidden});
  return as_dtype(rows.mul(weights.unsqueeze(2)).sum(1), dtype());
}

Qwen3VLModel::VisionOutput Qwen3VLModel::vision_tower(const at::Tensor& pixel_values,
                                                      int64_t grid_h, int64_t grid_w) const {
  const VisionConfig& v = config_.vision;
  const Weights& w = *w_;
  const int64_t n = grid_h * grid_w, h = v.hidden, hd = v.head_dim(),
                merged_width = h * v.merge_size * v.merge_size;
  if (pixel_values.dim() != 2 || pixel_values.size(0) != n ||
      pixel_values.size(1) != v.grid().patch_values() || grid_h % v.merge_size != 0 ||
      grid_w % v.merge_size != 0) {
    throw Error("Qwen3-VL: pixel values must be [" + std::to_string(n) + ", " +
                std::to_string(v.grid().patch_values()) + "] for a " + std::to_string(grid_h) +
                " × " + std::to_string(grid_w) + " patch grid");
  }
  at::Tensor x = linear(pixel_values.to(device_, dtype()), w.patch)
                     .add(position_embeddings(grid_h, grid_w));  // [N, h]
  const RopeTables rope = patch_rope(hd, v.merge_size, v.rope_theta, grid_h, grid_w, device_);
  const RopeTables rotary{rope.cos.unsqueeze(1), rope.sin.unsqueeze(1)};  // [N, 1, hd]
  std::vector<at::Tensor> deepstack;
  for (int64_t i = 0; i < v.depth; ++i) {
    const Weights::Block& b = w.blocks[static_cast<std::size_t>(i)];
    const at::Tensor qkv =
        linear(layer_norm(x, b.norm1.weight, b.norm1.bias, 1e-6), b.qkv).view({n, 3, v.heads, hd});
    // The reference rotates q and k in float32 and casts back; every patch sees every other.
    const auto heads_first = [&](const at::Tensor& t) { return t.transpose(0, 1).unsqueeze(0); };
    const at::Tensor q = as_dtype(apply_rope(qkv.select(1, 0).to(at::kFloat), rotary), dtype());
    const at::Tensor k = as_dtype(apply_rope(qkv.select(1, 1).to(at::kFloat), rotary), dtype());
    const at::Tensor a = attention(heads_first(q), heads_first(k), heads_first(qkv.select(1, 2)),
                                   /*causal=*/false);  // [1, heads, N, hd]
    x = x.add(linear(a.squeeze(0).transpose(0, 1).reshape({n, h}), b.proj));
    const at::Tensor up = linear(layer_norm(x, b.norm2.weight, b.norm2.bias, 1e-6), b.fc1);
    x = x.add(linear(v.tanh_gelu ? at::gelu(up, "tanh") : at::gelu(up), b.fc2));
    const auto listed = std::find(v.deepstack_blocks.begin(), v.deepstack_blocks.end(), i);
    if (listed != v.deepstack_blocks.end()) {
      const auto k_index = static_cast<std::size_t>(listed - v.deepstack_blocks.begin());
      deepstack.resize(std::max(deepstack.size(), k_index + 1));
      deepstack[k_index] = w.deepstack[k_index](x, merged_width);
    }
  }
  return {x, deepstack.empty() ? at::Tensor() : at::stack(deepstack, 0)};
}

at::Tensor Qwen3VLModel::image_features(const at::Tensor& pixel_values, int64_t grid_h,
                                        int64_t grid_w) const {
  const VisionConfig& v = config_.vision;
  const VisionOutput out = vision_tower(pixel_values, grid_h, grid_w);
  const at::Tensor merged =
      w_->merger(out.hidden, v.hidden * v.merge_size * v.merge_size).unsqueeze(0);  // [1, M, H]
  return out.deepstack.defined() ? at::cat({merged, out.deepstack}, 0) : merged;
}

at::Tensor Qwen3VLModel::encode_image(const family::ImageInputs& image) const {
  return image_features(image.pixel_values, image.rows, image.columns);
}

namespace {

// One generation: the shared multimodal RoPE sequence (interleaved sections), with DeepStack
// feature k added to layer k's output at the image's rows, in the residual stream's dtype.
class Qwen3VLSequence final : public family::MropeSequence {
 public:
  // features [1 + k, M, H] as image_features() gives them (undefined: text only).
  Qwen3VLSequence(const Decoder& decoder, const at::Tensor& features, int64_t rows, int64_t columns,
                  int32_t image_token, std::unique_ptr<KVCache> cache)
      : MropeSequence(decoder, features.defined() ? features[0] : at::Tensor(), rows, columns,
                      image_token, MropeLayout::kInterleaved, std::move(cache)),
        deepstack_(features.defined() ? features.narrow(0, 1, features.size(0) - 1)
                                      : at::Tensor()) {}

 protected:
  at::Tensor run_layers(at::Tensor x, const at::Tensor& image_rows,
                        const RopeTables& rope) override {
    const Decoder& d = decoder();
    const int64_t deep = image_rows.defined() ? deepstack_.size(0) : 0;
    for (int64_t i = 0; i < d.config().layers; ++i) {
      x = d.layer(i, x, cache(), i, rope);
      if (i < deep) x = x.index_add(1, image_rows, deepstack_[i].unsqueeze(0).to(x.scalar_type()));
    }
    deepstack_.reset();
    cache().commit(x.size(1));
    return d.logits(x);
  }

 private:
  at::Tensor deepstack_;  // [k, M, H] until prefill
};

}  // namespace

std::unique_ptr<family::Sequence> Qwen3VLModel::start(const at::Tensor& features,
                                                      const family::ImageInputs& image,
                                                      int64_t capacity,
                                                      CachePlacement placement) const {
  const DecoderConfig& t = config_.text;
  auto cache = make_kv_cache({t.layers, t.kv_heads, t.head_dim, capacity},
                             at::TensorOptions().dtype(dtype()).device(device_), placement);
  const int64_t merge = config_.vision.merge_size;
  return std::make_unique<Qwen3VLSequence>(
      *w_->text, features, image.rows / merge, image.columns / merge,
      static_cast<int32_t>(config_.image_token_id), std::move(cache));
}

}  // namespace docsift::family::qwen3vl
