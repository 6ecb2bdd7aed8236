#include "docsift/family/mllama/model.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <set>

#include "docsift/error.h"
#include "docsift/family/memory_shape.h"
#include "docsift/family/mllama/tiles.h"
#include "docsift/json_fields.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/weights.h"

namespace docsift::family::mllama {

using namespace docsift::model;  // the shared blocks (model/) this family is built from
namespace {

// Where each part lives: the Hub checkpoints' legacy names, or the module tree transformers 5
// builds (model.vision_model, model.language_model, lm_head).
struct Names {
  std::string vision, projector, language, lm_head;

  static Names detect(const WeightLoader& w) {
    if (w.has("model.language_model.embed_tokens.weight")) {
      return {"model.vision_model.", "model.multi_modal_projector.", "model.language_model.",
              "lm_head.weight"};
    }
    return {"vision_model.", "multi_modal_projector.", "language_model.model.",
            "language_model.lm_head.weight"};
  }
};

// The arrangement of the inputs' canvas (1 + its index among the model's), which the encoder's
// tile embeddings are chosen by; 0, which the encoder refuses, for inputs this family did not make.
int64_t arrangement_of(const family::ImageInputs& image) {
  const MllamaCanvas* canvas = image.find_family_part<MllamaCanvas>();
  return canvas != nullptr ? canvas->aspect_ratio_id : 0;
}

}  // namespace

memory::ModelShape memory_shape(const MllamaConfig& c, std::uint64_t parameters) {
  const DecoderConfig& t = c.text;
  const MllamaVisionConfig& v = c.vision;
  // The cache grows in the self-attention layers only; cross K/V are a fixed size per image.
  memory::ModelShape m = family::decoder_memory_shape(t, parameters);
  m.vision_hidden = v.hidden;
  m.vision_heads = v.heads;
  m.vision_intermediate = v.intermediate;
  m.vision_tokens = v.padded_tokens_per_tile();
  m.image_size = v.image_size;
  // The encoder runs every tile slot as one sequence, keeps its intermediate layers' hidden states
  // and hands the projector their concatenation (output_dim channels).
  m.vision_joint_tiles = v.max_num_tiles;
  m.vision_kept_states = static_cast<std::int64_t>(v.intermediate_layers.size());
  m.vision_output_width = v.output_dim;
  // The cross-attention layers are quantized like the decoder's own (int8): the same projections.
  const auto cross = static_cast<std::uint64_t>(c.cross_layers().size());
  const model::LayerInt8Terms layer = model::decoder_layer_int8_terms(t);
  m.quantized_parameters += cross * layer.parameters;
  m.quantized_rows += cross * layer.rows;
  m.cross_kv_elements = cross * 2 * t.kv_heads * t.head_dim * v.max_num_tiles * v.tokens_per_tile();
  // Prefill holds the projected image until every cross layer's keys and values are made from it.
  if (m.cross_kv_elements > 0) {
    m.prefill_image_elements =
        static_cast<std::uint64_t>(v.max_num_tiles * v.padded_tokens_per_tile() * t.hidden);
  }
  return m;
}

MllamaModel::MllamaModel(const Checkpoint& checkpoint, const Numerics& numerics, at::Device device,
                         CrossAttentionRows rows)
    : config_(
          parse_mllama_config(checkpoint.config(), (checkpoint.dir() / "config.json").string())),
      numerics_(numerics),
      device_(device),
      rows_(rows) {
  const MllamaConfig& c = config_;
  WeightLoader load(checkpoint, numerics.dtype, device);
  const Names n = Names::detect(load);
  const bool int8 = numerics.quantization == model::Quantization::Int8;
  // The vision tower and projector stay in the dtype (as the reference loaded them in 8-bit).
  vision_ = std::make_unique<MllamaVisionEncoder>(load, c.vision, n.vision);
  projector_w_ = load.take(n.projector + "weight", {c.text.hidden, c.vision.output_dim});
  projector_b_ = load.take(n.projector + "bias", {c.text.hidden});
  text_ = std::make_unique<Decoder>(load, c.text, n.language, n.lm_head, numerics, device);
  const DecoderConfig& t = c.text;
  const int64_t q_out = t.heads * t.head_dim, kv_out = t.kv_heads * t.head_dim;
  for (const int64_t i : c.cross_layers()) {
    const std::string p = n.language + "layers." + std::to_string(i) + ".";
    CrossLayer l;
    l.input_norm = load.take(p + "input_layernorm.weight", {t.hidden});
    l.post_norm = load.take(p + "post_attention_layernorm.weight", {t.hidden});
    l.q_norm = load.take(p + "cross_attn.q_norm.weight", {t.head_dim});
    l.k_norm = load.take(p + "cross_attn.k_norm.weight", {t.head_dim});
    l.attn_gate = load.take(p + "cross_attn_attn_gate", {1});
    l.mlp_gate = load.take(p + "cross_attn_mlp_gate", {1});
    l.q = load.take_linear(p + "cross_attn.q_proj.", q_out, t.hidden, /*bias=*/false, int8);
    l.k = load.take_linear(p + "cross_attn.k_proj.", kv_out, t.hidden, /*bias=*/false, int8);
    l.v = load.take_linear(p + "cross_attn.v_proj.", kv_out, t.hidden, /*bias=*/false, int8);
    l.o = load.take_linear(p + "cross_attn.o_proj.", t.hidden, q_out, /*bias=*/false, int8);
    l.mlp = load_swiglu(load, p + "mlp.", t.hidden, t.intermediate, int8);
    cross_.push_back(std::move(l));
  }
  load.finish();
}

MllamaModel::~MllamaModel() = default;

std::size_t MllamaModel::parameter_bytes() const {
  std::size_t total = vision_->parameter_bytes() + text_->parameter_bytes() +
                      projector_w_.nbytes() + projector_b_.nbytes();
  for (const CrossLayer& l : cross_) {
    for (const at::Tensor* t :
         {&l.input_norm, &l.post_norm, &l.q_norm, &l.k_norm, &l.attn_gate, &l.mlp_gate}) {
      total += t->nbytes();
    }
    total += l.q.nbytes() + l.k.nbytes() + l.v.nbytes() + l.o.nbytes() + l.mlp.nbytes();
  }
  return total;
}

std::size_t MllamaModel::scratch_bytes() const { return text_->scratch_bytes(); }

at::Tensor MllamaModel::encode_image(const family::ImageInputs& image) const {
  const at::Tensor features =
      vision_->forward(image.pixel_values, image.tiles, arrangement_of(image));  // [K, P, out]
  // [K, P, H] → [1, K·P, H]: image, tile, token order (CLS first in each tile).
  return linear(features, projector_w_, projector_b_).reshape({1, -1, config_.text.hidden});
}

at::Tensor MllamaModel::embed_tokens(const at::Tensor& ids) const {
  return text_->embed_tokens(ids);
}

std::unique_ptr<KVCache> MllamaModel::make_cache(int64_t capacity, CachePlacement placement) const {
  const DecoderConfig& t = config_.text;
  return make_kv_cache({t.self_layers(), t.kv_heads, t.head_dim, capacity},
                       at::TensorOptions().dtype(numerics_.dtype).device(device_), placement);
}

std::pair<at::Tensor, at::Tensor> MllamaModel::cross_keys_values(int64_t layer,
                                                                 const at::Tensor& states) const {
  const DecoderConfig& t = config_.text;
  const CrossLayer& l = cross_[static_cast<std::size_t>(layer)];
  const int64_t v = states.size(1);
  // [1, V, nkv·hd] → [1, nkv, V, hd]; keys normed per head (no RoPE in cross-attention).
  const at::Tensor keys =
      linear(states, l.k, text_->scratch()).view({1, v, t.kv_heads, t.head_dim}).transpose(1, 2);
  const at::Tensor values =
      linear(states, l.v, text_->scratch()).view({1, v, t.kv_heads, t.head_dim}).transpose(1, 2);
  return {rms_norm(keys, l.k_norm, t.rms_eps).contiguous(), values.contiguous()};
}

at::Tensor MllamaModel::cross_layer(const CrossLayer& l, const at::Tensor& x,
                                    const std::pair<at::Tensor, at::Tensor>& kv, int64_t start,
                                    int64_t image_position, int64_t tiles) const {
  const DecoderConfig& c = config_.text;
  const at::ScalarType dtype = numerics_.dtype;
  const int64_t t = x.size(1);
  const at::Tensor h = as_dtype(rms_norm(x, l.input_norm, c.rms_eps), dtype);
  // [1, T, nh·hd] → [1, nh, T, hd], normed per head.
  const at::Tensor q =
      rms_norm(linear(h, l.q, text_->scratch()).view({1, t, c.heads, c.head_dim}).transpose(1, 2),
               l.q_norm, c.rms_eps);
  // Rows before the image token (`before` of this block's T) and rows from it on. The latter see
  // the used tiles' tokens, the first tiles·P keys; the reference masks the rest. The former have
  // no key to attend (their mask row is all blocked), which transformers turns into an unmasked
  // row over every vision token and Meta into a zero row.
  const int64_t before = std::clamp<int64_t>(image_position - start, 0, t);
  const int64_t used = tiles * config_.vision.tokens_per_tile();
  std::vector<at::Tensor> parts;
  if (before > 0) {
    const at::Tensor rows = q.slice(2, 0, before);
    parts.push_back(rows_ == CrossAttentionRows::Meta
                        ? at::zeros_like(rows)
                        : attention(rows, kv.first, kv.second, /*causal=*/false));
  }
  if (before < t) {
    parts.push_back(attention(q.slice(2, before), kv.first.slice(2, 0, used),
                              kv.second.slice(2, 0, used),
                              /*causal=*/false));
  }
  const at::Tensor a = (parts.size() == 1 ? parts[0] : at::cat(parts, 2))
                           .transpose(1, 2)
                           .reshape({1, t, c.heads * c.head_dim});
  const at::Tensor after =
      text_->residual_add(x, linear(a, l.o, text_->scratch()).mul(l.attn_gate.tanh()));
  at::Tensor mlp =
      swiglu(l.mlp, as_dtype(rms_norm(after, l.post_norm, c.rms_eps), dtype), text_->scratch());
  if (before > 0) mlp.slice(1, 0, before).zero_();  // both references mask the MLP of those rows
  return text_->residual_add(after, mlp.mul(l.mlp_gate.tanh()));
}

at::Tensor MllamaModel::forward(const at::Tensor& embeds, KVCache& cache,
                                const std::vector<std::pair<at::Tensor, at::Tensor>>& cross,
                                int64_t image_position, int64_t tiles) const {
  const DecoderConfig& c = config_.text;
  const int64_t t = embeds.size(1), start = cache.length();
  const RopeTables rope = text_->rope(start, t);
  at::Tensor x = text_->to_residual(embeds);
  int64_t self_index = 0, cross_index = 0;
  for (int64_t i = 0; i < c.layers; ++i) {
    if (!c.is_family_layer(i)) {
      x = text_->layer(i, x, cache, self_index++, rope);
      continue;
    }
    // Without an image the reference skips cross-attention layers entirely.
    if (!cross.empty()) {
      x = cross_layer(cross_[static_cast<std::size_t>(cross_index)], x,
                      cross[static_cast<std::size_t>(cross_index)], start, image_position, tiles);
    }
    ++cross_index;
  }
  cache.commit(t);
  return text_->logits(x);
}

// ---------------------------------------------------------------------------------------------
// family::Model

namespace {

// One generation: the projected image waits for prefill, which turns it into every cross layer's
// keys and values (kept to the end) and drops it; the self-attention cache grows per token.
class MllamaSequence final : public family::Sequence {
 public:
  MllamaSequence(const MllamaModel& model, at::Tensor states, int64_t tiles,
                 std::unique_ptr<KVCache> cache)
      : model_(model), states_(std::move(states)), tiles_(tiles), cache_(std::move(cache)) {}

  at::Tensor prefill(const std::vector<int32_t>& prompt) override {
    const int64_t image_token = model_.config().image_token_id;
    const auto count = std::count(prompt.begin(), prompt.end(), static_cast<int32_t>(image_token));
    if (states_.defined() && count != 1) {
      throw Error(
          "Llama 3.2 Vision: the prompt must hold exactly one <|image|> token for the image (it "
          "has " +
          std::to_string(count) + ")");
    }
    if (!states_.defined() && count != 0)
      throw Error("Llama 3.2 Vision: the prompt has an <|image|> token but no image");
    if (states_.defined()) {
      image_position_ = std::find(prompt.begin(), prompt.end(), static_cast<int32_t>(image_token)) -
                        prompt.begin();
      for (int64_t l = 0; l < static_cast<int64_t>(model_.config().cross_layers().size()); ++l) {
        cross_.push_back(model_.cross_keys_values(l, states_));
      }
      states_.reset();
    }
    const at::Tensor ids =
        at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
    return model_.forward(model_.embed_tokens(ids).unsqueeze(0), *cache_, cross_, image_position_,
                          tiles_);
  }
  at::Tensor extend(const std::vector<int32_t>& tokens) override {
    // Every extended row comes after the image token, so each sees the cross-attention keys and
    // values prefill made ([1, k, hidden] queries against them).
    const at::Tensor ids =
        at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), at::kLong);
    return model_.forward(model_.embed_tokens(ids).unsqueeze(0), *cache_, cross_, image_position_,
                          tiles_);
  }
  std::size_t device_bytes() const override {
    return cache_->device_bytes() + (on_device() ? cross_bytes() : 0);
  }
  std::size_t host_bytes() const override {
    return cache_->host_bytes() + (on_device() ? 0 : cross_bytes());
  }

 private:
  bool on_device() const { return !model_.device().is_cpu(); }
  std::size_t cross_bytes() const {
    std::size_t total = 0;
    for (const auto& [k, v] : cross_) total += k.nbytes() + v.nbytes();
    return total;
  }

  const MllamaModel& model_;
  at::Tensor states_;
  int64_t tiles_;
  std::unique_ptr<KVCache> cache_;
  std::vector<std::pair<at::Tensor, at::Tensor>> cross_;
  int64_t image_position_ = 0;
};

}  // namespace

std::unique_ptr<family::Sequence> MllamaModel::start(const at::Tensor& cross_states,
                                                     const family::ImageInputs& image,
                                                     int64_t capacity,
                                                     CachePlacement placement) const {
  return std::make_unique<MllamaSequence>(*this, cross_states, image.tiles,
                                          make_cache(capacity, placement));
}

}  // namespace docsift::family::mllama
