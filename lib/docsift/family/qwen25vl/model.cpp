#include "docsift/family/qwen25vl/model.h"

#include <ATen/ops/argsort.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/gelu.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "docsift/error.h"
#include "docsift/family/memory_shape.h"
#include "docsift/family/mrope_sequence.h"
#include "docsift/family/qwen25vl/positions.h"
#include "docsift/model/blocks.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/mrope.h"
#include "docsift/model/weights.h"

namespace docsift::family::qwen25vl {

using namespace docsift::model;  // the shared blocks (model/) this family is built from

struct Qwen25VLModel::Weights {
  struct Block {
    at::Tensor norm1, norm2;  // float32 (rms_norm's convention)
    LinearWeight qkv, proj;  // qkv [3h, h] with bias: q, k, v head-major as the reference splits it
    SwiGLU mlp;              // gate/up/down with biases
  };
  at::Tensor
      patch;  // [h, 1176]: the Conv3d kernel [h, 3, 2, 14, 14] as one matrix (stride = kernel)
  std::vector<Block> blocks;
  at::Tensor merger_norm;               // [h] float32
  LinearWeight merger_fc1, merger_fc2;  // [4h, 4h] and [H, 4h], with biases
  std::unique_ptr<Decoder> text;
};

namespace {

// Consecutive windows of the same length, attended as one batch: the full windows of a page are
// most of them.
at::Tensor windowed_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const std::vector<int64_t>& bounds) {
  // q, k, v [N, heads, hd] → [N, heads, hd]
  std::vector<at::Tensor> out;
  std::size_t i = 0;
  while (i + 1 < bounds.size()) {
    const int64_t len = bounds[i + 1] - bounds[i];
    std::size_t j = i + 1;
    while (j + 1 < bounds.size() && bounds[j + 1] - bounds[j] == len) ++j;
    const int64_t count = static_cast<int64_t>(j - i), from = bounds[i];
    const auto batch = [&](const at::Tensor& x) {
      return x.narrow(0, from, count * len)
          .view({count, len, x.size(1), x.size(2)})
          .transpose(1, 2);
    };
    const at::Tensor a =
        attention(batch(q), batch(k), batch(v), /*causal=*/false);  // [count, heads, len, hd]
    out.push_back(a.transpose(1, 2).reshape({count * len, q.size(1), q.size(2)}));
    i = j;
  }
  return out.size() == 1 ? out.front() : at::cat(out, 0);
}

}  // namespace

memory::ModelShape memory_shape(const Qwen25VLConfig& c, std::int64_t max_pixels,
                                std::uint64_t parameters) {
  memory::ModelShape m = family::decoder_memory_shape(c.text, parameters);
  m.vision_hidden = c.vision.hidden;
  m.vision_heads = c.vision.heads;
  m.vision_intermediate = c.vision.intermediate;
  // One "tile": the whole image, every patch in the full-attention blocks (the plan's upper bound).
  m.vision_tokens = max_pixels / (c.vision.patch_size * c.vision.patch_size);
  // The plan counts 3·image_size² pixel values a tile; the patches hold temporal_patch_size copies.
  m.image_size = static_cast<std::int64_t>(
      std::ceil(std::sqrt(static_cast<double>(max_pixels * c.vision.temporal_patch_size))));
  return m;
}

Qwen25VLModel::Qwen25VLModel(const Checkpoint& checkpoint, const Qwen25VLConfig& config,
                             const Numerics& numerics, at::Device device)
    : config_(config), numerics_(numerics), device_(device), w_(std::make_unique<Weights>()) {
  const VisionConfig& v = config_.vision;
  WeightLoader load(checkpoint, numerics.dtype, device);
  const QwenTowers n = qwen_towers(load);
  Weights& w = *w_;
  const int64_t h = v.hidden, merged = h * v.merge_size * v.merge_size;
  const at::Tensor patch = load.take(n.vision + "patch_embed.proj.weight",
                                     {h, 3, v.temporal_patch_size, v.patch_size, v.patch_size});
  if (patch.defined()) w.patch = patch.reshape({h, v.patch_values()});
  for (int64_t i = 0; i < v.depth; ++i) {
    const std::string p = n.vision + "blocks." + std::to_string(i) + ".";
    Weights::Block b;
    b.norm1 = load.take_float(p + "norm1.weight", {h});
    b.norm2 = load.take_float(p + "norm2.weight", {h});
    b.qkv = load.take_linear(p + "attn.qkv.", 3 * h, h, /*bias=*/true, /*int8=*/false);
    b.proj = load.take_linear(p + "attn.proj.", h, h, /*bias=*/true, /*int8=*/false);
    b.mlp = load_swiglu(load, p + "mlp.", h, v.intermediate, /*int8=*/false, /*bias=*/true);
    w.blocks.push_back(std::move(b));
  }
  w.merger_norm = load.take_float(n.vision + "merger.ln_q.weight", {h});
  w.merger_fc1 =
      load.take_linear(n.vision + "merger.mlp.0.", merged, merged, /*bias=*/true, /*int8=*/false);
  w.merger_fc2 = load.take_linear(n.vision + "merger.mlp.2.", v.out_hidden, merged, /*bias=*/true,
                                  /*int8=*/false);
  w.text =
      std::make_unique<Decoder>(load, config_.text, n.language, "lm_head.weight", numerics, device);
  load.finish();
}

Qwen25VLModel::~Qwen25VLModel() = default;

std::size_t Qwen25VLModel::parameter_bytes() const {
  const Weights& w = *w_;
  std::size_t total = w.patch.nbytes() + w.merger_norm.nbytes() + w.merger_fc1.nbytes() +
                      w.merger_fc2.nbytes() + w.text->parameter_bytes();
  for (const auto& b : w.blocks)
    total +=
        b.norm1.nbytes() + b.norm2.nbytes() + b.qkv.nbytes() + b.proj.nbytes() + b.mlp.nbytes();
  return total;
}

std::size_t Qwen25VLModel::scratch_bytes() const { return w_->text->scratch_bytes(); }

const Decoder& Qwen25VLModel::decoder() const { return *w_->text; }

at::Tensor Qwen25VLModel::vision_tower(const at::Tensor& pixel_values, int64_t grid_h,
                                       int64_t grid_w) const {
  return vision_tower(pixel_values, grid_h, grid_w, window_order(config_.vision, grid_h, grid_w));
}

at::Tensor Qwen25VLModel::vision_tower(const at::Tensor& pixel_values, int64_t grid_h,
                                       int64_t grid_w, const Windows& windows) const {
  const VisionConfig& v = config_.vision;
  const Weights& w = *w_;
  const int64_t n = grid_h * grid_w, unit = v.merge_size * v.merge_size, h = v.hidden,
                hd = v.head_dim();
  if (pixel_values.dim() != 2 || pixel_values.size(0) != n ||
      pixel_values.size(1) != v.patch_values() || grid_h % v.merge_size != 0 ||
      grid_w % v.merge_size != 0) {
    throw Error("Qwen2.5-VL: pixel values must be [" + std::to_string(n) + ", " +
                std::to_string(v.patch_values()) + "] for a " + std::to_string(grid_h) + " × " +
                std::to_string(grid_w) + " patch grid");
  }
  const at::Tensor order = windows.index.to(device_);
  // Regroup whole merge blocks (unit rows at a time) into window order: [N, d] → [N, d].
  const auto to_windows = [&](const at::Tensor& x) {
    return x.reshape({n / unit, unit, x.size(-1)}).index_select(0, order).reshape({n, x.size(-1)});
  };
  at::Tensor x = to_windows(linear(pixel_values.to(device_, dtype()), w.patch));  // [N, h]
  const RopeTables rope =
      patch_rope(v.head_dim(), v.merge_size, v.rope_theta, grid_h, grid_w, device_);
  const RopeTables rotary{to_windows(rope.cos).unsqueeze(1),
                          to_windows(rope.sin).unsqueeze(1)};  // [N, 1, hd]
  const std::vector<int64_t> whole{0, n};
  for (int64_t i = 0; i < v.depth; ++i) {
    const Weights::Block& b = w.blocks[static_cast<std::size_t>(i)];
    const at::Tensor qkv = linear(rms_norm(x, b.norm1, 1e-6), b.qkv).view({n, 3, v.heads, hd});
    // The reference rotates q and k in float32 and casts back.
    const at::Tensor q = as_dtype(apply_rope(qkv.select(1, 0).to(at::kFloat), rotary), dtype());
    const at::Tensor k = as_dtype(apply_rope(qkv.select(1, 1).to(at::kFloat), rotary), dtype());
    const at::Tensor a =
        windowed_attention(q, k, qkv.select(1, 2), v.full_attention(i) ? whole : windows.bounds);
    x = x.add(linear(a.reshape({n, h}), b.proj));
    x = x.add(swiglu(b.mlp, rms_norm(x, b.norm2, 1e-6), nullptr));
  }
  return x;
}

at::Tensor Qwen25VLModel::image_features(const at::Tensor& pixel_values, int64_t grid_h,
                                         int64_t grid_w) const {
  const VisionConfig& v = config_.vision;
  const Weights& w = *w_;
  const Windows windows = window_order(v, grid_h, grid_w);
  const at::Tensor x = vision_tower(pixel_values, grid_h, grid_w, windows);
  const int64_t unit = v.merge_size * v.merge_size;
  // The merger: RMSNorm per patch, the unit patches of a merge block side by side [M, 4h], then
  // Linear → GELU (erf) → Linear into the decoder's width; then back from window order.
  const at::Tensor blocks =
      rms_norm(x, w.merger_norm, 1e-6).reshape({x.size(0) / unit, unit * v.hidden});
  const at::Tensor merged = linear(at::gelu(linear(blocks, w.merger_fc1)), w.merger_fc2);
  const at::Tensor back = at::argsort(windows.index).to(device_);
  return merged.index_select(0, back);
}

at::Tensor Qwen25VLModel::encode_image(const family::ImageInputs& image) const {
  return image_features(image.pixel_values, image.rows, image.columns);
}

std::unique_ptr<family::Sequence> Qwen25VLModel::start(const at::Tensor& features,
                                                       const family::ImageInputs& image,
                                                       int64_t capacity,
                                                       CachePlacement placement) const {
  const DecoderConfig& t = config_.text;
  auto cache = make_kv_cache({t.layers, t.kv_heads, t.head_dim, capacity},
                             at::TensorOptions().dtype(dtype()).device(device_), placement);
  // The merged grid, contiguous sections (docs/models.md, "Qwen2.5-VL").
  const int64_t merge = config_.vision.merge_size;
  return std::make_unique<family::MropeSequence>(
      *w_->text, features, image.rows / merge, image.columns / merge,
      static_cast<int32_t>(config_.image_token_id), MropeLayout::kContiguous, std::move(cache));
}

}  // namespace docsift::family::qwen25vl
