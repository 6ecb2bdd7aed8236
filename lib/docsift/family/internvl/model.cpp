#include "docsift/family/internvl/model.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <atomic>

#include "docsift/error.h"
#include "docsift/family/memory_shape.h"
#include "docsift/json_fields.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/weights.h"

namespace docsift::family::internvl {

using namespace docsift::model;  // the shared blocks (model/) this family is built from
namespace {

using nlohmann::json;

// InternVL3's language model is Qwen2.5 and InternVL3.5's a dense Qwen3 (1B to 38B); the shared
// decoder reads both. InternVL3.5's MoE and GPT-OSS language models are refused by name.
void check_language_model(const JsonFields& text, const std::string& label) {
  const std::string type = text.string("model_type", "");
  const json* archs = text.find("architectures");
  const std::string arch = archs != nullptr && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
                               ? (*archs)[0].get<std::string>()
                               : "";
  const auto refuse = [&](const std::string& what) {
    throw FileError(label + ": the language model is " + what +
                    ", which docsift does not run; it reads InternVL3 (Qwen2.5) and InternVL3.5 with a dense Qwen3 "
                    "(1B to 38B)");
  };
  if (type == "qwen3_moe" || arch == "Qwen3MoeForCausalLM") refuse("Qwen3 MoE (InternVL3.5-30B-A3B, -241B-A28B)");
  if (type == "gpt_oss" || arch == "GptOssForCausalLM") refuse("GPT-OSS (InternVL3.5-20B-A4B)");
}

}  // namespace

int64_t InternVLConfig::tokens_per_tile() const {
  const auto side = static_cast<int64_t>(static_cast<double>(patches_per_side()) * downsample_ratio);
  return side * side;
}

InternVLConfig parse_internvl_config(const json& config, const std::string& label) {
  const JsonFields top(config, label);
  InternVLConfig c;
  const json* archs = top.find("architectures");
  std::string arch = archs && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
                         ? (*archs)[0].get<std::string>()
                         : "";
  if (arch == "InternVLChatModel") {
    c.layout = InternVLConfig::Layout::kOriginal;
  } else if (arch == "InternVLForConditionalGeneration") {
    c.layout = InternVLConfig::Layout::kHf;
  } else {
    throw FileError(label + ": architecture \"" + arch +
                    "\" is not supported (supported: InternVLChatModel, InternVLForConditionalGeneration)");
  }
  c.downsample_ratio = top.number("downsample_ratio", 0.5);
  if (c.downsample_ratio != 0.5) top.unsupported("downsample_ratio", std::to_string(c.downsample_ratio), "0.5");
  const bool tie_embeddings = top.boolean("tie_word_embeddings", false);
  const JsonFields vision = top.child("vision_config");
  c.vision_hidden = vision.integer("hidden_size");
  c.vision_layers = vision.integer("num_hidden_layers");
  c.vision_heads = vision.integer("num_attention_heads");
  c.vision_intermediate = vision.integer("intermediate_size");
  c.image_size = vision.square_size("image_size", 448);
  c.patch_size = vision.square_size("patch_size", 14);
  c.vision_eps = vision.number("layer_norm_eps", 1e-6);
  if (const auto norm = vision.string("norm_type", "layer_norm"); norm != "layer_norm") {
    vision.unsupported("norm_type", norm, "layer_norm");
  }
  if (const auto act = vision.string("hidden_act", "gelu"); act != "gelu") vision.unsupported("hidden_act", act, "gelu");

  if (c.layout == InternVLConfig::Layout::kOriginal) {
    if (top.integer("select_layer", -1) != -1) top.unsupported("select_layer", "not -1", "-1");
    if (const auto ps = top.string("ps_version", "v2"); ps != "v2") top.unsupported("ps_version", ps, "v2");
    if (vision.boolean("qk_normalization", false)) vision.unsupported("qk_normalization", "true", "false");
    if (!vision.boolean("qkv_bias", true)) vision.unsupported("qkv_bias", "false", "true");
    check_language_model(top.child("llm_config"), label);
    c.text = parse_decoder_config(top.child("llm_config"), /*attention_bias=*/true, tie_embeddings);
  } else {
    c.image_token_id = top.integer("image_token_id");
    if (top.integer("vision_feature_layer", -1) != -1) top.unsupported("vision_feature_layer", "not -1", "-1");
    if (const auto s = top.string("vision_feature_select_strategy", "default"); s != "default") {
      top.unsupported("vision_feature_select_strategy", s, "default");
    }
    if (const auto act = top.string("projector_hidden_act", "gelu"); act != "gelu") {
      top.unsupported("projector_hidden_act", act, "gelu");
    }
    if (vision.boolean("use_qk_norm", false)) vision.unsupported("use_qk_norm", "true", "false");
    if (!vision.boolean("attention_bias", true)) vision.unsupported("attention_bias", "false", "true");
    if (!vision.boolean("use_mean_pooling", true)) vision.unsupported("use_mean_pooling", "false", "true");
    check_language_model(top.child("text_config"), label);
    c.text = parse_decoder_config(top.child("text_config"), /*attention_bias=*/true, tie_embeddings);
  }
  if (c.vision_hidden <= 0 || c.vision_layers <= 0 || c.vision_heads <= 0 || c.vision_hidden % c.vision_heads != 0 ||
      c.patch_size <= 0 || c.image_size % c.patch_size != 0 || c.patches_per_side() % 2 != 0) {
    throw FileError(label + ": vision_config sizes are inconsistent (hidden divisible by heads, image by patch, "
                            "an even number of patches per side)");
  }
  return c;
}

// ---------------------------------------------------------------------------------------------

struct InternVLModel::Weights {
  struct VisionLayer {
    at::Tensor norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b, norm2_w, norm2_b, fc1_w, fc1_b, fc2_w, fc2_b, ls1, ls2;
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
      n = {"vision_model.", "mlp1.", "language_model.model.", "language_model.lm_head.weight", false};
    } else if (w.has("model.language_model.embed_tokens.weight")) {  // transformers >= 4.52
      n = {"model.vision_tower.", "model.multi_modal_projector.", "model.language_model.", "lm_head.weight", true};
    } else {  // the first -hf releases
      n = {"vision_tower.", "multi_modal_projector.", "language_model.model.", "language_model.lm_head.weight", true};
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

std::uint64_t parameter_count(const InternVLConfig& c) {
  using u64 = std::uint64_t;
  const u64 cv = c.vision_hidden, vi = c.vision_intermediate, g = c.patches_per_side(), p = c.patch_size;
  const u64 vision = cv + (g * g + 1) * cv + cv * 3 * p * p + cv +
                     c.vision_layers * (4 * cv + 3 * cv * cv + 3 * cv + cv * cv + cv + 2 * vi * cv + vi + cv + 2 * cv);
  const u64 h = c.text.hidden, shuffled = 4 * cv;
  const u64 projector = 2 * shuffled + h * shuffled + h + h * h + h;
  return vision + projector + decoder_parameters(c.text);
}

int InternVLModel::live_instances() { return g_live_models.load(); }

InternVLModel::InternVLModel(const Checkpoint& checkpoint, const Numerics& numerics, at::Device device)
    : config_(parse_internvl_config(checkpoint.config(), (checkpoint.dir() / "config.json").string())),
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
  w.position = load.take(emb + (n.hf ? "position_embeddings" : "position_embedding"), {1, grid * grid + 1, cv});
  const std::string patch = emb + (n.hf ? "patch_embeddings.projection." : "patch_embedding.");
  w.patch_w = load.take(patch + "weight", {cv, 3, c.patch_size, c.patch_size});
  w.patch_b = load.take(patch + "bias", {cv});
  for (int64_t i = 0; i < c.vision_layers; ++i) {
    const std::string p = n.vision + (n.hf ? "encoder.layer." : "encoder.layers.") + std::to_string(i) + ".";
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
  for (const auto* t : {&w.cls, &w.position, &w.patch_w, &w.patch_b, &w.proj_norm_w, &w.proj_norm_b, &w.proj1_w,
                        &w.proj1_b, &w.proj2_w, &w.proj2_b}) {
    add(*t);
  }
  total += w.text->parameter_bytes();
  for (const auto& l : w.vision) {
    for (const auto* t : {&l.norm1_w, &l.norm1_b, &l.qkv_w, &l.qkv_b, &l.proj_w, &l.proj_b, &l.norm2_w, &l.norm2_b,
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
    const at::Tensor qkv = linear(h, l.qkv_w, l.qkv_b).view({n, tokens, 3, heads, hd}).permute({2, 0, 3, 1, 4});
    const at::Tensor a = attention(qkv[0], qkv[1], qkv[2], /*causal=*/false).transpose(1, 2).reshape({n, tokens, cv});
    x = x.add(linear(a, l.proj_w, l.proj_b).mul(l.ls1));
    const at::Tensor m = linear(at::gelu(linear(layer_norm(x, l.norm2_w, l.norm2_b, c.vision_eps), l.fc1_w, l.fc1_b)),
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
  const at::Tensor shuffled =
      x.reshape({n, g / 2, 2, g / 2, 2, cv}).permute({0, 1, 3, 2, 4, 5}).reshape({n, (g / 2) * (g / 2), 4 * cv});
  const at::Tensor h = layer_norm(shuffled, w.proj_norm_w, w.proj_norm_b, 1e-5);
  return linear(at::gelu(linear(h, w.proj1_w, w.proj1_b)), w.proj2_w, w.proj2_b);
}

at::Tensor InternVLModel::embed_tokens(const at::Tensor& ids) const { return w_->text->embed_tokens(ids); }

at::Tensor InternVLModel::embed(const at::Tensor& ids, const at::Tensor& features) const {
  at::Tensor embeds = embed_tokens(ids).unsqueeze(0);  // [1, T, hidden]
  if (!features.defined()) return embeds;
  if (config_.image_token_id < 0) throw Error("InternVL: the image token id is not set");
  const at::Tensor mask = ids.to(device_, at::kLong).eq(config_.image_token_id).unsqueeze(0);  // [1, T]
  const int64_t slots = mask.sum().item<int64_t>();
  const int64_t rows = features.size(0) * features.size(1);
  if (slots != rows) {
    throw Error("the prompt has " + std::to_string(slots) + " image tokens but the image gives " +
                std::to_string(rows) + " features (" + std::to_string(features.size(0)) + " tiles × " +
                std::to_string(features.size(1)) + ")");
  }
  // Image-token rows are overwritten in order, tile-major (thumbnail last).
  embeds.masked_scatter_(mask.unsqueeze(-1).expand_as(embeds), features.to(embeds.scalar_type()));
  return embeds;
}

KVCacheShape InternVLModel::cache_shape(int64_t capacity) const {
  return {config_.text.layers, config_.text.kv_heads, config_.text.head_dim, capacity};
}

std::unique_ptr<KVCache> InternVLModel::make_cache(int64_t capacity, CachePlacement placement) const {
  return make_kv_cache(cache_shape(capacity), at::TensorOptions().dtype(dtype()).device(device_), placement);
}

at::Tensor InternVLModel::forward(const at::Tensor& embeds, KVCache& cache) const {
  return w_->text->forward(embeds, cache);
}

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
    const at::Tensor ids = at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
    at::Tensor logits = model_.forward(model_.embed(ids, features_), *cache_);
    features_.reset();  // the merged embeddings held what the decoder needs
    return logits;
  }
  at::Tensor decode(int32_t token) override {
    const at::Tensor id = at::tensor({static_cast<int64_t>(token)}, at::kLong);
    return model_.forward(model_.embed_tokens(id).unsqueeze(0), *cache_);
  }
  std::size_t device_bytes() const override { return cache_->device_bytes(); }
  std::size_t host_bytes() const override { return cache_->host_bytes(); }

 private:
  const InternVLModel& model_;
  at::Tensor features_;
  std::unique_ptr<KVCache> cache_;
};

}  // namespace

at::Tensor InternVLModel::encode_image(const family::ImageInputs& image) const {
  return image_features(image.pixel_values);
}

std::unique_ptr<family::Sequence> InternVLModel::start(const at::Tensor& features, const family::ImageInputs&,
                                                       int64_t capacity, CachePlacement placement) const {
  return std::make_unique<InternVLSequence>(*this, features, make_cache(capacity, placement));
}

}  // namespace docsift::family::internvl
