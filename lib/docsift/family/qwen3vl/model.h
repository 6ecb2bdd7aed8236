// Qwen3-VL: a vision tower of 16 px patches (3-D patch embedding with a bias, a learned square
// position table interpolated to the image's grid, 2-D rotary, full attention, LayerNorm and a
// GELU MLP), a 2×2 patch merger into the language model's width plus one DeepStack merger per
// listed block, and the Qwen3 decoder (q/k head norms) with interleaved multimodal RoPE, the
// DeepStack features added to the first layers' outputs at the image's positions. Reads
// transformers' tensor names (model.visual.*, model.language_model.*) and the flat ones; the math
// follows docs/models.md, "Qwen3-VL". Shapes: N patches, M = N/4 merged patches, h vision width,
// H the decoder's, k DeepStack blocks.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "docsift/family/family.h"
#include "docsift/family/qwen3vl/config.h"
#include "docsift/model/decoder.h"

namespace docsift::model {
class Checkpoint;
}  // namespace docsift::model

namespace docsift::family::qwen3vl {

// The shapes the memory plan needs for images of at most `max_pixels` pixels; `parameters` counts
// every weight.
memory::ModelShape memory_shape(const Qwen3VLConfig& config, std::int64_t max_pixels,
                                std::uint64_t parameters);

class Qwen3VLModel final : public family::Model {
 public:
  // Loads every weight onto `device`, checking names and shapes against config.json. With int8,
  // the decoder's linear layers are quantized as they stream in; the vision tower and mergers
  // stay in the dtype.
  Qwen3VLModel(const model::Checkpoint& checkpoint, const Qwen3VLConfig& config,
               const model::Numerics& numerics, at::Device device);
  ~Qwen3VLModel() override;

  const Qwen3VLConfig& config() const { return config_; }
  const model::Numerics& numerics() const override { return numerics_; }
  at::Device device() const override { return device_; }
  std::size_t parameter_bytes() const override;
  std::size_t scratch_bytes() const override;
  // image_features(image.pixel_values, image.rows, image.columns).
  at::Tensor encode_image(const family::ImageInputs& image) const override;
  std::unique_ptr<family::Sequence> start(const at::Tensor& features,
                                          const family::ImageInputs& image, int64_t capacity,
                                          model::CachePlacement placement) const override;

  // The learned positions interpolated (bilinear, corners aligned) to a grid_h × grid_w patch
  // grid, [N, h] in the dtype, patches in merge-block order: what the patch embedding gets added.
  at::Tensor position_embeddings(int64_t grid_h, int64_t grid_w) const;
  struct VisionOutput {
    at::Tensor hidden;     // the last block's output [N, h]
    at::Tensor deepstack;  // the DeepStack mergers' outputs [k, M, H] (undefined when k = 0)
  };
  // pixel_values [N, 3·2·16²]; grid in 16 px patches.
  VisionOutput vision_tower(const at::Tensor& pixel_values, int64_t grid_h, int64_t grid_w) const;
  // What the sequence takes, [1 + k, M, H]: the merger's output (the <|image_pad|> rows), then
  // the DeepStack features for decoder layers 0 … k − 1; merged patches row-major.
  at::Tensor image_features(const at::Tensor& pixel_values, int64_t grid_h, int64_t grid_w) const;
  const model::Decoder& decoder() const;

 private:
  struct Weights;
  Qwen3VLConfig config_;
  model::Numerics numerics_;
  at::Device device_;
  std::unique_ptr<Weights> w_;
};

}  // namespace docsift::family::qwen3vl
