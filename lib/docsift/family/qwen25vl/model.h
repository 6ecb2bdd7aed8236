// Qwen2.5-VL: a vision tower of 14 px patches (3-D patch embedding, 2-D rotary, window attention
// with some full-attention blocks, RMSNorm and SwiGLU), a 2×2 patch merger into the language
// model's width, and the Qwen2 decoder with multimodal RoPE. Reads the release's tensor names and
// transformers 5's; the math follows docs/models.md, "Qwen2.5-VL".
// Shapes: N patches, M = N/4 merged patches, h vision width, H the decoder's.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "docsift/family/family.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/model/decoder.h"

namespace docsift::model {
class Checkpoint;
}  // namespace docsift::model

namespace docsift::family::qwen25vl {

struct Windows;  // positions.h

// The shapes the memory plan needs for images of at most `max_pixels` pixels; `parameters` counts
// every weight.
memory::ModelShape memory_shape(const Qwen25VLConfig& config, std::int64_t max_pixels,
                                std::uint64_t parameters);

class Qwen25VLModel final : public family::Model {
 public:
  // Loads every weight onto `device`, checking names and shapes against config.json. With int8,
  // the decoder's linear layers are quantized as they stream in; the vision tower and merger stay
  // in the dtype.
  Qwen25VLModel(const model::Checkpoint& checkpoint, const Qwen25VLConfig& config,
                const model::Numerics& numerics, at::Device device);
  ~Qwen25VLModel() override;

  const Qwen25VLConfig& config() const { return config_; }
  const model::Numerics& numerics() const override { return numerics_; }
  at::Device device() const override { return device_; }
  std::size_t parameter_bytes() const override;
  std::size_t scratch_bytes() const override;
  // image_features(image.pixel_values, image.rows, image.columns).
  at::Tensor encode_image(const family::ImageInputs& image) const override;
  std::unique_ptr<family::Sequence> start(const at::Tensor& features,
                                          const family::ImageInputs& image, int64_t capacity,
                                          model::CachePlacement placement) const override;

  // The last vision block's output [N, h], patches in window order (the reference's
  // last_hidden_state). pixel_values [N, 1176]; grid in 14 px patches.
  at::Tensor vision_tower(const at::Tensor& pixel_values, int64_t grid_h, int64_t grid_w) const;
  // The merged features the prompt's <|image_pad|> rows take, [M, H], merged patches row-major.
  at::Tensor image_features(const at::Tensor& pixel_values, int64_t grid_h, int64_t grid_w) const;
  const model::Decoder& decoder() const;

 private:
  // vision_tower with the image's windows, which image_features needs again to undo their order.
  at::Tensor vision_tower(const at::Tensor& pixel_values, int64_t grid_h, int64_t grid_w,
                          const Windows& windows) const;
  struct Weights;
  Qwen25VLConfig config_;
  model::Numerics numerics_;
  at::Device device_;
  std::unique_ptr<Weights> w_;
};

}  // namespace docsift::family::qwen25vl
