// One generation of the Qwen families' decoders (Qwen2.5-VL, Qwen3-VL): the prompt holds the image
// as one run of image tokens over the merged patch grid, rotated by 3-D positions
// (docs/models.md, "The language model and multimodal RoPE"). Prefill writes the merged features
// over those rows and runs the decoder; later tokens continue at cache position + delta on every
// axis (transformers' rope_deltas), which plain RoPE tables give. A family whose layers take more
// of the image (Qwen3-VL's DeepStack) runs them itself in run_layers(). Shapes: T prompt tokens, M
// merged patches, H hidden.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "docsift/family/family.h"
#include "docsift/model/decoder.h"
#include "docsift/model/kv_cache.h"
#include "docsift/model/mrope.h"

namespace docsift::family {

// Where a checkpoint of the lineage keeps its two towers' weights: transformers' module tree
// (model.visual.*, model.language_model.*), as Qwen3-VL's release and transformers 5 save them,
// or the flat names of Qwen2.5-VL's release (visual.*, model.*). Both families read both.
struct QwenTowers {
  std::string vision, language;  // prefixes, ending in "."
};
QwenTowers qwen_towers(const model::WeightLoader& load);

class MropeSequence : public Sequence {
 public:
  // `features` [M, H]: the merged features of a `rows` × `columns` merged grid (undefined: a
  // text-only prompt). `image_token` marks their rows in the prompt; `layout` lays mrope_section
  // over the frequencies.
  MropeSequence(const model::Decoder& decoder, at::Tensor features, int64_t rows, int64_t columns,
                int32_t image_token, model::MropeLayout layout,
                std::unique_ptr<model::KVCache> cache);

  // Throws docsift::Error when the prompt's image tokens are not one image's M.
  at::Tensor prefill(const std::vector<int32_t>& prompt) override;
  at::Tensor extend(const std::vector<int32_t>& tokens) override;
  std::size_t device_bytes() const override { return cache_->device_bytes(); }
  std::size_t host_bytes() const override { return cache_->host_bytes(); }

 protected:
  // Every layer over the prompt's residual stream x [1, T, H], committing T tokens to the cache:
  // the last position's logits. `image_rows` [M] int64 are the image tokens' positions (undefined
  // for a text-only prompt).
  virtual at::Tensor run_layers(at::Tensor x, const at::Tensor& image_rows,
                                const model::RopeTables& rope);
  const model::Decoder& decoder() const { return decoder_; }
  model::KVCache& cache() { return *cache_; }

 private:
  const model::Decoder& decoder_;
  at::Tensor features_;
  int64_t rows_, columns_;
  int32_t image_token_;
  model::MropeLayout layout_;
  std::unique_ptr<model::KVCache> cache_;
  int64_t delta_ = 0;
};

}  // namespace docsift::family
