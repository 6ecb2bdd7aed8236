// Llama 3.2 Vision's image encoder (docs/models.md, "The vision encoder"): a ViT over up to 4 tiles
// of 1601 tokens (40×40 patches + CLS), with tile-aware positional embeddings, 32 local layers and
// 8 gated global layers over all tiles at once, and the local layers' features at five depths kept
// beside the final output; then the projector to the text model's width.
// Shapes: K tile slots (max_num_tiles), P tokens per tile (1601), P8 = P padded to a multiple
// of 8 (1608), D vision width (1280), L intermediate layers kept (5), H text width.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "docsift/family/mllama/tiles.h"

namespace docsift {
class JsonFields;
}
namespace docsift::model {
class WeightLoader;
}

namespace docsift::family::mllama {

using model::WeightLoader;

class MllamaVisionEncoder {
 public:
  // Names under `prefix` ("vision_model." or "model.vision_model."), in the model's dtype.
  MllamaVisionEncoder(WeightLoader& load, const MllamaVisionConfig& config,
                      const std::string& prefix);

  // pixel_values [K, 3, S, S] (every tile slot), `tiles` of them used, the aspect ratio id of the
  // arrangement → [K, P, D·(1 + L)]: the global encoder's output, then the kept local features
  // interleaved (channel d·L + l), as the projector was trained on. Pad tokens are dropped.
  at::Tensor forward(const at::Tensor& pixel_values, int64_t tiles, int64_t aspect_ratio_id) const;
  std::size_t parameter_bytes() const;

 private:
  struct Layer {
    at::Tensor norm1_w, norm1_b, norm2_w, norm2_b, q, k, v, o, fc1_w, fc1_b, fc2_w, fc2_b;
    at::Tensor gate_attn, gate_ffn;  // global layers only: tanh-gated residual branches
  };
  // One encoder layer over x [1, K·P8, D]; `real`/`pad` index the non-padding and padding
  // positions for the attention rule (see vision.cpp).
  at::Tensor layer(const Layer& l, const at::Tensor& x, const at::Tensor& real,
                   const at::Tensor& pad) const;

  MllamaVisionConfig config_;
  at::Tensor patch_w, class_embedding, position, position_gate, tile_position, pre_tile,
      pre_tile_gate, post_tile, post_tile_gate, pre_norm_w, pre_norm_b, post_norm_w, post_norm_b;
  std::vector<Layer> local_, global_;
};

}  // namespace docsift::family::mllama
