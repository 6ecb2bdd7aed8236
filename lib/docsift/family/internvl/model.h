// InternVL3: InternViT vision tower → pixel shuffle → MLP projector → Qwen2 decoder.
// Reads both checkpoint layouts (original InternVLChatModel and transformers-native -hf) into one
// set of weights; the math follows docs/models.md, "The forward pass".
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/family/family.h"
#include "docsift/family/internvl/config.h"
#include "docsift/memory/plan.h"
#include "docsift/model/blocks.h"
#include "docsift/model/decoder.h"
#include "docsift/model/kv_cache.h"
#include "docsift/model/linear.h"
#include "docsift/model/precision.h"

namespace docsift::model {
class Checkpoint;
}  // namespace docsift::model

namespace docsift::family::internvl {

// The shared blocks (model/) this family is built from.
using model::CachePlacement;
using model::Checkpoint;
using model::DecoderConfig;
using model::KVCache;
using model::KVCacheShape;
using model::Numerics;

// The shapes the memory plan needs; `parameters` counts every weight in the checkpoint.
memory::ModelShape memory_shape(const InternVLConfig& config, std::uint64_t parameters);

class InternVLModel final : public family::Model {
 public:
  // Loads every weight onto `device`, checking names and shapes against config.json. With int8,
  // the language model's linear layers are quantized tensor by tensor as they stream from the
  // memory-mapped file; the vision tower, projector, embeddings and norms stay in the dtype.
  InternVLModel(const Checkpoint& checkpoint, const Numerics& numerics, at::Device device);
  InternVLModel(const Checkpoint& checkpoint, at::ScalarType dtype, at::Device device)
      : InternVLModel(checkpoint, Numerics{dtype}, device) {}
  ~InternVLModel() override;

  const InternVLConfig& config() const { return config_; }
  // The original layout's config.json does not name the image token; the tokenizer does
  // (<IMG_CONTEXT>). Throws when `id` is outside the vocabulary.
  void set_image_token_id(int64_t id);
  const Numerics& numerics() const override { return numerics_; }
  at::Device device() const override { return device_; }
  std::size_t parameter_bytes() const override;
  std::size_t scratch_bytes() const override;
  // family::Model: image_features(); a sequence that merges them into the prompt at prefill.
  at::Tensor encode_image(const family::ImageInputs& image) const override;
  std::unique_ptr<family::Sequence> start(const at::Tensor& features,
                                          const family::ImageInputs& image, int64_t capacity,
                                          CachePlacement placement) const override;

  // InternViT last hidden state, [N, 1 + patches, vision_hidden] (CLS first).
  at::Tensor vision_tower(const at::Tensor& pixel_values) const;
  // Projected image features, [N, tokens_per_tile, hidden].
  at::Tensor image_features(const at::Tensor& pixel_values) const;
  // Token embeddings with every image-token position replaced, in order, by the image features.
  // ids [T] int64; features [N, tokens_per_tile, hidden]. Throws when the counts differ.
  at::Tensor embed(const at::Tensor& ids, const at::Tensor& features) const;
  at::Tensor embed_tokens(const at::Tensor& ids) const;
  // Runs the decoder over embeds [1, T, hidden] at positions [cache.length(), +T), appends to the
  // cache, and returns the float32 logits of the last position, [vocab].
  at::Tensor forward(const at::Tensor& embeds, KVCache& cache) const;
  const model::Decoder& decoder() const;  // the language model
  // A cache sized for `capacity` tokens in this model's dtype, on its device or offloaded.
  std::unique_ptr<KVCache> make_cache(int64_t capacity,
                                      CachePlacement placement = CachePlacement::kDevice) const;
  KVCacheShape cache_shape(int64_t capacity) const;
  // How many InternVLModel objects exist in this process (a reload must free the old one first).
  static int live_instances();

 private:
  struct Weights;
  InternVLConfig config_;
  Numerics numerics_;
  at::Device device_;
  std::unique_ptr<Weights> w_;
};

}  // namespace docsift::family::internvl
