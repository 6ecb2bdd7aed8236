// Llama 3.2 Vision (MllamaForConditionalGeneration): the vision encoder (vision.h) → a linear
// projector → a Llama 3 text decoder whose self-attention layers are the shared decoder and
// whose cross-attention layers (every fifth, from 3) read the image through tanh-gated branches.
// Reads both checkpoint layouts (the Hub's legacy names and transformers' module tree) into one
// set of weights; the math follows docs/models.md, "The vision encoder" and "The text decoder".
//
// Where cross-attention keys and values live: they are computed once per image at prefill, kept
// by the Sequence for the whole generation, on the compute device in every device tier (the
// offloaded_cache tier moves the growing self-attention cache to the host; the cross K/V are a
// fixed 8 layers × 2 × 6404 × 8 × 128 values, 210 MB in float16 for 11B, and are read by every
// token, so streaming them from the host would cost each step a PCIe copy of that size). The cpu
// tier holds them in host memory like everything else. The memory plan counts them so.
// Shapes: T text tokens, H hidden, nh/nkv heads, hd head dim, V = K·P vision tokens per image.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/family/family.h"
#include "docsift/family/mllama/options.h"
#include "docsift/family/mllama/vision.h"
#include "docsift/model/decoder.h"

namespace docsift::model {
class Checkpoint;
}  // namespace docsift::model

namespace docsift::family::mllama {

// The shared blocks (model/) this family is built from.
using model::CachePlacement;
using model::Checkpoint;
using model::Decoder;
using model::DecoderConfig;
using model::KVCache;
using model::LinearWeight;
using model::Numerics;
using model::SwiGLU;
class MllamaVisionEncoder;

// What text rows before the <|image|> token get from a cross-attention layer
// (family::mllama::CrossAttentionRows): transformers (what published results on the Hub checkpoint
// used) keeps their gated attention output, unmasked over all vision tokens, and zeroes only the
// MLP branch; Meta's reference zeroes both.
using family::mllama::CrossAttentionRows;

// Parses config.json (transformers 4.45's rope_scaling + rope_theta or 5.x's rope_parameters);
// throws docsift::FileError naming the key.
memory::ModelShape memory_shape(const MllamaConfig& config, std::uint64_t parameters);

class MllamaModel final : public family::Model {
 public:
  MllamaModel(const Checkpoint& checkpoint, const Numerics& numerics, at::Device device,
              CrossAttentionRows rows = CrossAttentionRows::Transformers);
  ~MllamaModel() override;

  const MllamaConfig& config() const { return config_; }
  const Numerics& numerics() const override { return numerics_; }
  at::Device device() const override { return device_; }
  std::size_t parameter_bytes() const override;
  std::size_t scratch_bytes() const override;

  // Vision encoder and projector: [1, K·P, H], every tile slot (unused ones are masked later).
  at::Tensor encode_image(const family::ImageInputs& image) const override;
  std::unique_ptr<family::Sequence> start(const at::Tensor& cross_states,
                                          const family::ImageInputs& image, int64_t capacity,
                                          CachePlacement placement) const override;

  // One cross-attention layer's keys and values from the projected image, each [1, nkv, V, hd]
  // (keys RMS-normed per head).
  std::pair<at::Tensor, at::Tensor> cross_keys_values(int64_t layer,
                                                      const at::Tensor& cross_states) const;
  // Runs embeds [1, T, H] at positions [cache.length(), +T). `cross` holds one K/V pair per
  // cross-attention layer (empty: text only, the cross layers are skipped as the reference
  // does); the image token sits at `image_position`, and rows from there on see the first
  // `tiles`·P vision tokens. Returns float32 logits of the last position, [vocab].
  at::Tensor forward(const at::Tensor& embeds, KVCache& cache,
                     const std::vector<std::pair<at::Tensor, at::Tensor>>& cross,
                     int64_t image_position, int64_t tiles) const;
  at::Tensor embed_tokens(const at::Tensor& ids) const;
  std::unique_ptr<KVCache> make_cache(int64_t capacity, CachePlacement placement) const;

 private:
  struct CrossLayer {
    at::Tensor input_norm, post_norm, q_norm, k_norm, attn_gate, mlp_gate;
    LinearWeight q, k, v, o;
    SwiGLU mlp;
  };
  at::Tensor cross_layer(const CrossLayer& l, const at::Tensor& x,
                         const std::pair<at::Tensor, at::Tensor>& kv, int64_t start,
                         int64_t image_position, int64_t tiles) const;

  MllamaConfig config_;
  Numerics numerics_;
  at::Device device_;
  CrossAttentionRows rows_;
  std::unique_ptr<MllamaVisionEncoder> vision_;
  at::Tensor projector_w_, projector_b_;
  std::unique_ptr<Decoder> text_;
  std::vector<CrossLayer> cross_;  // in the order of config.cross_layers()
};

}  // namespace docsift::family::mllama
