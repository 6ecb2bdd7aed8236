#include "docsift/family/mrope_sequence.h"

#include <ATen/ops/nonzero.h>
#include <ATen/ops/tensor.h>

#include <string>

#include "docsift/error.h"
#include "docsift/model/weights.h"

namespace docsift::family {

QwenTowers qwen_towers(const model::WeightLoader& load) {
  if (load.has("model.language_model.embed_tokens.weight"))
    return {"model.visual.", "model.language_model."};
  return {"visual.", "model."};
}

MropeSequence::MropeSequence(const model::Decoder& decoder, at::Tensor features, int64_t rows,
                             int64_t columns, int32_t image_token, model::MropeLayout layout,
                             std::unique_ptr<model::KVCache> cache)
    : decoder_(decoder),
      features_(std::move(features)),
      rows_(rows),
      columns_(columns),
      image_token_(image_token),
      layout_(layout),
      cache_(std::move(cache)) {}

at::Tensor MropeSequence::prefill(const std::vector<int32_t>& prompt) {
  const at::Tensor ids = at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
  at::Tensor embeds = decoder_.embed_tokens(ids).unsqueeze(0);  // [1, T, H]
  const bool image = features_.defined();
  const model::MropePositions positions =
      model::mrope_positions(prompt, image_token_, image ? rows_ : 0, image ? columns_ : 0);
  at::Tensor image_rows;  // [M] int64
  if (image) {
    const at::Tensor is_image = ids.eq(image_token_);
    const int64_t slots = is_image.sum().item<int64_t>();
    if (slots != features_.size(0)) {
      throw Error("the prompt has " + std::to_string(slots) + " image tokens but the image gives " +
                  std::to_string(features_.size(0)) + " features");
    }
    image_rows = at::nonzero(is_image).view({-1}).to(embeds.device());
    embeds.index_copy_(1, image_rows, features_.unsqueeze(0).to(embeds.scalar_type()));
    features_.reset();
  }
  delta_ = positions.delta;
  const model::RopeTables rope =
      model::mrope_tables(decoder_.config().rope, positions.ids, layout_, decoder_.numerics().dtype,
                          decoder_.embed_device());
  return run_layers(decoder_.to_residual(embeds), image_rows, rope);
}

at::Tensor MropeSequence::run_layers(at::Tensor x, const at::Tensor& /*image_rows*/,
                                     const model::RopeTables& rope) {
  for (int64_t i = 0; i < decoder_.config().layers; ++i) x = decoder_.layer(i, x, *cache_, i, rope);
  cache_->commit(x.size(1));
  return decoder_.logits(x);
}

at::Tensor MropeSequence::extend(const std::vector<int32_t>& tokens) {
  const at::Tensor ids = at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), at::kLong);
  const auto count = static_cast<int64_t>(tokens.size());
  return decoder_.forward(decoder_.embed_tokens(ids).unsqueeze(0), *cache_,
                          decoder_.rope(cache_->length() + delta_, count));
}

}  // namespace docsift::family
