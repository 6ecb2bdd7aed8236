#include "docsift/family/internvl/model.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <atomic>

#include "docsift/error.h"
#include "docsift/family/memory_shape.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/decode_graph.h"
#include "docsift/model/weights.h"

namespace docsift::family::internvl {

using namespace docsift::model;  // the shared blocks (model/) this family is built from
// ---------------------------------------------------------------------------------------------

struct InternVLModel::Weights {
  struct VisionLayer {
    at::Tensor norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b, norm2_w, norm2_b, fc1_w, fc1_b,
        fc2_w, fc2_b, ls1, ls2;
  };
  at::Tensor cls, position, patch_w, patch_b;
  std::vector<VisionLayer> vision;
  at::Tensor proj_norm_w, proj_norm_b, proj1_w, proj1_b, proj2_w, proj2_b;
  std::unique_ptr<Decoder> text;  // the Qwen2 language model (int8 under model.quantization: int8)
};

namespace {

// Where each weight lives in the two layouts. Names are built from the original layout's
// vocabulary (docs/models.md, "InternVL3").
struct Names {
  std::string vision, projector, language, lm_head;
  bool hf = false;

  static Names detect(const InternVLConfig& c, const WeightLoader& w) {
    Names n;
    if (c.layout == InternVLConfig::Layout::kOriginal) {
      n = {"vision_model.", "mlp1.", "language_model.model.", "language_model.lm_head.weight",
           false};
    } else if (w.has("model.language_model.embed_tokens.weight")) {  // transformers >= 4.52
      n = {"model.vision_tower.", "model.multi_modal_projector.", "model.language_model.",
           "lm_head.weight", true};
    } else {  // the first -hf releases
      n = {"vision_tower.", "multi_modal_projector.", "language_model.model.",
           "language_model.lm_head.weight", true};
    }
    return n;
  }
};

// Counted once construction has succeeded (a throwing constructor runs no destructor).
std::atomic<int> g_live_models{0};

}  // namespace

memory::ModelShape memory_shape(const InternVLConfig& c, std::uint64_t parameters) {
  memory::ModelShape m = family::decoder_memory_shape(c.text, parameters);
  m.vision_hidden = c.vision_hidden;
  m.vision_heads = c.vision_heads;
  m.vision_intermediate = c.vision_intermediate;
  m.vision_tokens = c.patches_per_side() * c.patches_per_side() + 1;  // patches + CLS
  m.image_size = c.image_size;
  return m;
}

int InternVLModel::live_instances() { return g_live_models.load(); }

InternVLModel::InternVLModel(const Checkpoint& checkpoint, const Numerics& numerics,
                             at::Device device)
    : config_(
          parse_internvl_config(checkpoint.config(), (checkpoint.dir() / "config.json").string())),
      numerics_(numerics),
      device_(device),
      w_(std::make_unique<Weights>()) {
  const InternVLConfig& c = config_;
  WeightLoader load(checkpoint, numerics.dtype, device);
  const Names n = Names::detect(c, load);
  Weights& w = *w_;
  const int64_t cv = c.vision_hidden, grid = c.patches_per_side();

  // Vision tower.
  const std::string emb = n.vision + "embeddings.";
  w.cls = load.take(emb + (n.hf ? "cls_token" : "class_embedding"), {1, 1, cv});
  w.position = load.take(emb + (n.hf ? "position_embeddings" : "position_embedding"),
                         {1, grid * grid + 1, cv});
  const std::string patch = emb + (n.hf ? "patch_embeddings.projection." : "patch_embedding.");
  w.patch_w = load.take(patch + "weight", {cv, 3, c.patch_size, c.patch_size});
  w.patch_b = load.take(patch + "bias", {cv});
  for (int64_t i = 0; i < c.vision_layers; ++i) {
    const std::string p =
        n.vision + (n.hf ? "encoder.layer." : "encoder.layers.") + std::to_string(i) + ".";
    Weights::VisionLayer l;
    const char* norm1 = n.hf ? "layernorm_before." : "norm1.";
    const char* norm2 = n.hf ? "layernorm_after." : "norm2.";
    l.norm1_w = load.take(p + norm1 + "weight", {cv});
    l.norm1_b = load.take(p + norm1 + "bias", {cv});
    l.norm2_w = load.take(p + norm2 + "weight", {cv});
    l.norm2_b = load.take(p + norm2 + "bias", {cv});
    if (n.hf) {  // separate q, k, v: fuse them into the original's one projection
      std::vector<at::Tensor> ws, bs;
      for (const char* proj : {"q_proj.", "k_proj.", "v_proj."}) {
        ws.push_back(load.take(p + "attention." + proj + "weight", {cv, cv}));
        bs.push_back(load.take(p + "attention." + proj + "bias", {cv}));
      }
      if (ws[0].defined() && ws[1].defined() && ws[2].defined()) l.qkv_w = at::cat(ws, 0);
      if (bs[0].defined() && bs[1].defined() && bs[2].defined()) l.qkv_b = at::cat(bs, 0);
    } else {
      l.qkv_w = load.take(p + "attn.qkv.weight", {3 * cv, cv});
      l.qkv_b = load.take(p + "attn.qkv.bias", {3 * cv});
    }
    const std::string proj = p + (n.hf ? "attention.projection_layer." : "attn.proj.");
    l.proj_w = load.take(proj + "weight", {cv, cv});
    l.proj_b = load.take(proj + "bias", {cv});
    l.fc1_w = load.take(p + "mlp.fc1.weight", {c.vision_intermediate, cv});
    l.fc1_b = load.take(p + "mlp.fc1.bias", {c.vision_intermediate});
    l.fc2_w = load.take(p + "mlp.fc2.weight", {cv, c.vision_intermediate});
    l.fc2_b = load.take(p + "mlp.fc2.bias", {cv});
    l.ls1 = load.take(p + (n.hf ? "lambda_1" : "ls1"), {cv});
    l.ls2 = load.take(p + (n.hf ? "lambda_2" : "ls2"), {cv});
    w.vision.push_back(std::move(l));
  }

  // Projector: 4·cv after the pixel shuffle.
  const int64_t shuffled = cv * 4, hidden = c.text.hidden;
  w.proj_norm_w = load.take(n.projector + (n.hf ? "layer_norm.weight" : "0.weight"), {shuffled});
  w.proj_norm_b = load.take(n.projector + (n.hf ? "layer_norm.bias" : "0.bias"), {shuffled});
  w.proj1_w = load.take(n.projector + (n.hf ? "linear_1.weight" : "1.weight"), {hidden, shuffled});
  w.proj1_b = load.take(n.projector + (n.hf ? "linear_1.bias" : "1.bias"), {hidden});
  w.proj2_w = load.take(n.projector + (n.hf ? "linear_2.weight" : "3.weight"), {hidden, hidden});
  w.proj2_b = load.take(n.projector + (n.hf ? "linear_2.bias" : "3.bias"), {hidden});

  // Language model: the shared Llama-style decoder.
  w.text = std::make_unique<Decoder>(load, c.text, n.language, n.lm_head, numerics, device);
  load.finish();
  ++g_live_models;
}

InternVLModel::~InternVLModel() { --g_live_models; }

void InternVLModel::set_image_token_id(int64_t id) {
  if (id < 0 || id >= config_.text.vocab) {
    throw Error("image token id " + std::to_string(id) + " is outside the model's vocabulary of " +
                std::to_string(config_.text.vocab));
  }
  config_.image_token_id = id;
}

std::size_t InternVLModel::parameter_bytes() const {
  std::size_t total = 0;
  const auto add = [&](const at::Tensor& t) {
    if (t.defined()) total += t.nbytes();
  };
  const Weights& w = *w_;
  for (const auto* t : {&w.cls, &w.position, &w.patch_w, &w.patch_b, &w.proj_norm_w, &w.proj_norm_b,
                        &w.proj1_w, &w.proj1_b, &w.proj2_w, &w.proj2_b}) {
    add(*t);
  }
  total += w.text->parameter_bytes();
  for (const auto& l : w.vision) {
    for (const auto* t :
         {&l.norm1_w, &l.norm1_b, &l.qkv_w, &l.qkv_b, &l.proj_w, &l.proj_b, &l.norm2_w, &l.norm2_b,
          &l.fc1_w, &l.fc1_b, &l.fc2_w, &l.fc2_b, &l.ls1, &l.ls2}) {
      add(*t);
    }
  }
  return total;
}

std::size_t InternVLModel::scratch_bytes() const { return w_->text->scratch_bytes(); }

at::Tensor InternVLModel::vision_tower(const at::Tensor& pixel_values) const {
  const InternVLConfig& c = config_;
  const Weights& w = *w_;
  const at::Tensor pixels = pixel_values.to(device_, dtype());
  const int64_t n = pixels.size(0), cv = c.vision_hidden, heads = c.vision_heads, hd = cv / heads;
  // Patchify: [N, 3, 448, 448] → [N, cv, 32, 32] → [N, 1024, cv]; CLS in front; absolute positions.
  at::Tensor x = at::conv2d(pixels, w.patch_w, w.patch_b, {c.patch_size, c.patch_size});
  x = x.flatten(2).transpose(1, 2);
  x = at::cat({w.cls.expand({n, 1, cv}), x}, 1).add(w.position);
  const int64_t tokens = x.size(1);
  for (const auto& l : w.vision) {
    // Pre-norm block with layer scale: x += ls1·Attn(LN1(x)); x += ls2·MLP(LN2(x)).
    const at::Tensor h = layer_norm(x, l.norm1_w, l.norm1_b, c.vision_eps);
    const at::Tensor qkv =
        linear(h, l.qkv_w, l.qkv_b).view({n, tokens, 3, heads, hd}).permute({2, 0, 3, 1, 4});
    const at::Tensor a = attention(qkv[0], qkv[1], qkv[2], /*causal=*/false)
                             .transpose(1, 2)
                             .reshape({n, tokens, cv});
    x = x.add(linear(a, l.proj_w, l.proj_b).mul(l.ls1));
    const at::Tensor m = linear(
        at::gelu(linear(layer_norm(x, l.norm2_w, l.norm2_b, c.vision_eps), l.fc1_w, l.fc1_b)),
        l.fc2_w, l.fc2_b);
    x = x.add(m.mul(l.ls2));
  }
  return x;  // no final norm in InternViT-300M
}

at::Tensor InternVLModel::image_features(const at::Tensor& pixel_values) const {
  const InternVLConfig& c = config_;
  const Weights& w = *w_;
  const at::Tensor x = vision_tower(pixel_values).slice(1, 1);  // drop CLS: [N, g², cv]
  const int64_t n = x.size(0), g = c.patches_per_side(), cv = c.vision_hidden;
  // Pixel shuffle (ps v2): output token (u, t) concatenates X(2u,2t), X(2u,2t+1), X(2u+1,2t),
  // X(2u+1,2t+1): [N, g/2, 2, g/2, 2, cv] → [N, g/2, g/2, 2, 2, cv] → [N, (g/2)², 4·cv].
  const at::Tensor shuffled = x.reshape({n, g / 2, 2, g / 2, 2, cv})
                                  .permute({0, 1, 3, 2, 4, 5})
                                  .reshape({n, (g / 2) * (g / 2), 4 * cv});
  const at::Tensor h = layer_norm(shuffled, w.proj_norm_w, w.proj_norm_b, 1e-5);
  return linear(at::gelu(linear(h, w.proj1_w, w.proj1_b)), w.proj2_w, w.proj2_b);
}

at::Tensor InternVLModel::embed_tokens(const at::Tensor& ids) const {
  return w_->text->embed_tokens(ids);
}

at::Tensor InternVLModel::embed(const at::Tensor& ids, const at::Tensor& features) const {
  at::Tensor embeds = embed_tokens(ids).unsqueeze(0);  // [1, T, hidden]
  if (!features.defined()) return embeds;
  if (config_.image_token_id < 0) throw Error("InternVL: the image token id is not set");
  const at::Tensor mask =
      ids.to(device_, at::kLong).eq(config_.image_token_id).unsqueeze(0);  // [1, T]
  const int64_t slots = mask.sum().item<int64_t>();
  const int64_t rows = features.size(0) * features.size(1);
  if (slots != rows) {
    throw Error("the prompt has " + std::to_string(slots) + " image tokens but the image gives " +
                std::to_string(rows) + " features (" + std::to_string(features.size(0)) +
                " tiles × " + std::to_string(features.size(1)) + ")");
  }
  // Image-token rows are overwritten in order, tile-major (thumbnail last).
  embeds.masked_scatter_(mask.unsqueeze(-1).expand_as(embeds), features.to(embeds.scalar_type()));
  return embeds;
}

KVCacheShape InternVLModel::cache_shape(int64_t capacity) const {
  return {config_.text.layers, config_.text.kv_heads, config_.text.head_dim, capacity};
}

std::unique_ptr<KVCache> InternVLModel::make_cache(int64_t capacity,
                                                   CachePlacement placement) const {
  return make_kv_cache(cache_shape(capacity), at::TensorOptions().dtype(dtype()).device(device_),
                       placement);
}

at::Tensor InternVLModel::forward(const at::Tensor& embeds, KVCache& cache) const {
  return w_->text->forward(embeds, cache);
}

const model::Decoder& InternVLModel::decoder() const { return *w_->text; }

}  // namespace docsift::family::internvl

// ---------------------------------------------------------------------------------------------
// family::Model

namespace docsift::family::internvl {
namespace {

// InternVL3's generation state: the image features wait for prefill, which writes them over the
// prompt's <IMG_CONTEXT> rows; after that only the KV cache remains.
class InternVLSequence final : public family::Sequence {
 public:
  InternVLSequence(const InternVLModel& model, at::Tensor features, std::unique_ptr<KVCache> cache)
      : model_(model), features_(std::move(features)), cache_(std::move(cache)) {}

  at::Tensor prefill(const std::vector<int32_t>& prompt) override {
    const at::Tensor ids =
        at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
    at::Tensor logits = model_.forward(model_.embed(ids, features_), *cache_);
    features_.reset();  // the merged embeddings held what the decoder needs
    return logits;
  }
  at::Tensor extend(const std::vector<int32_t>& tokens) override {
    if (tokens.size() == 1 && graphs_ == Graphs::kAllowed) {
      // The first decode step decides: a CUDA graph when the decoder and cache allow one
      // (supported() includes the cache being a DeviceKVCache).
      graphs_ =
          model::DecodeGraph::supported(model_.decoder(), *cache_) ? Graphs::kOn : Graphs::kOff;
      if (graphs_ == Graphs::kOn) {
        graph_ = std::make_unique<model::DecodeGraph>(model_.decoder(),
                                                      static_cast<model::DeviceKVCache&>(*cache_));
      }
    }
    if (tokens.size() == 1 && graphs_ == Graphs::kOn) return graph_->step(tokens[0]);
    // After prefill no image token can follow: [1, k, hidden] from the embeddings alone.
    const at::Tensor ids =
        at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), at::kLong);
    return model_.forward(model_.embed_tokens(ids).unsqueeze(0), *cache_);
  }
  std::size_t device_bytes() const override { return cache_->device_bytes(); }
  std::size_t host_bytes() const override { return cache_->host_bytes(); }
  void allow_graphs(bool allowed) override { graphs_ = allowed ? Graphs::kAllowed : Graphs::kOff; }

 private:
  enum class Graphs { kOff, kAllowed, kOn };
  const InternVLModel& model_;
  at::Tensor features_;
  std::unique_ptr<KVCache> cache_;
  Graphs graphs_ = Graphs::kOff;
  std::unique_ptr<model::DecodeGraph> graph_;  // declared after cache_: destroyed before it
};

}  // namespace

at::Tensor InternVLModel::encode_image(const family::ImageInputs& image) const {
  return image_features(image.pixel_values);
}

std::unique_ptr<family::Sequence> InternVLModel::start(const at::Tensor& features,
                                                       const family::ImageInputs&, int64_t capacity,
                                                       CachePlacement placement) const {
  return std::make_unique<InternVLSequence>(*this, features, make_cache(capacity, placement));
}

}  // namespace docsift::family::internvl
