// The model-family interface: everything above the model layer (generate, the tier ladder, the
// memory plan, run, inspect) sees a checkpoint only through these three classes.
//
//   Family   a recognised checkpoint folder: its config, chat template and image preprocessing,
//            the memory plan's terms; loads weights into a Model. One per Engine.
//   Model    loaded weights on one device in one Numerics: the vision encoder, and Sequences.
//   Sequence one generation's state: the self-attention KV cache plus what the image leaves
//            behind for the decoder (InternVL3: features merged into the prompt; Llama 3.2
//            Vision: cross-attention keys and values). Dropping it frees them all.
//
// A family is a folder under family/ (model, preprocessing, adapter) plus one entry in
// registry.cpp, which recognises a checkpoint from config.json's model_type / architectures.
#pragma once

#include <ATen/core/Tensor.h>

#include <any>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/extract/schema.h"
#include "docsift/family/settings.h"
#include "docsift/image/resample.h"
#include "docsift/memory/plan.h"
#include "docsift/model/inspect.h"
#include "docsift/model/kv_cache.h"
#include "docsift/model/precision.h"
#include "docsift/text/chat_template.h"

namespace docsift::model {
class Checkpoint;
}

namespace docsift::family {

// One image as a model takes it, made by Family::preprocess.
struct ImageInputs {
  ImageInputs() = default;
  // InternVL3 needs only its tiles (tests and benches build inputs from a tensor).
  ImageInputs(at::Tensor pixels)
      : pixel_values(std::move(pixels)) {  // NOLINT(google-explicit-constructor)
    if (pixel_values.defined()) tiles = prompt_units = static_cast<int>(pixel_values.size(0));
  }
  // InternVL3: [N, 3, 448, 448], the grid's tiles then the thumbnail. Llama 3.2 Vision:
  // [max_num_tiles, 3, S, S], every tile slot (unused ones zero). Qwen2.5-VL: [patches, 3·2·14·14],
  // the flattened patches in merge-block order. Undefined: a text-only prompt.
  at::Tensor pixel_values;
  int tiles = 0;  // tiles holding the image (InternVL3: thumbnail included; Qwen2.5-VL: 1)
  int columns = 1, rows = 1;  // the tile grid (Qwen2.5-VL: the patch grid, 14 px patches)
  // What the chat format's image expansion takes (text::ChatFormat::image_text): InternVL3 its
  // tiles, Qwen2.5-VL its merged patches (one <|image_pad|> each), Llama 3.2 Vision 1.
  int prompt_units = 1;
  // What only the family that made these inputs reads back (its Model's encode_image): a value of
  // a type of its own, set by its Family::preprocess; empty for the families that need nothing
  // more.
  std::any family_part;
  bool defined() const { return pixel_values.defined(); }
  // The family's part as a T, or nullptr when the inputs hold none of that type.
  template <class T>
  const T* find_family_part() const {
    return std::any_cast<T>(&family_part);
  }
};

class Sequence {
 public:
  virtual ~Sequence() = default;
  // Runs the whole prompt (ids with the family's image tokens) and returns float32 logits of its
  // last position, [vocab]. Called once, first.
  virtual at::Tensor prefill(const std::vector<int32_t>& prompt) = 0;
  // Feeds `tokens` (one or more) after what came before, in one forward pass over the KV cache,
  // and returns float32 logits of the last, [vocab]. Forced text (a key and its ':') goes in as
  // one extend of k tokens instead of k decode steps (docs/decoding.md).
  virtual at::Tensor extend(const std::vector<int32_t>& tokens) = 0;
  // One token: extend({token}).
  at::Tensor decode(int32_t token) { return extend({token}); }
  // Whether one-token steps may replay a CUDA graph (model/decode_graph.h) where the family, the
  // device and the cache allow one; off until asked. Families without graphs ignore it.
  virtual void allow_graphs(bool allowed) { (void)allowed; }
  // Bytes this sequence holds on the compute device and in host memory (caches, image state).
  virtual std::size_t device_bytes() const = 0;
  virtual std::size_t host_bytes() const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual at::Device device() const = 0;
  virtual const model::Numerics& numerics() const = 0;
  at::ScalarType dtype() const { return numerics().dtype; }
  // Bytes of every weight as held (int8 weights and scales included), and of the dequantize
  // scratch buffer.
  virtual std::size_t parameter_bytes() const = 0;
  virtual std::size_t scratch_bytes() const = 0;
  // The vision encoder and projector: what the sequence needs of the image (InternVL3: features
  // [N, 256, hidden]; Llama 3.2 Vision: cross-attention states [1, tiles·tokens, hidden]).
  virtual at::Tensor encode_image(const ImageInputs& image) const = 0;
  // A sequence with room for `capacity` tokens, its self-attention cache on the device or
  // offloaded to host memory. `image_state` is encode_image's result (undefined: text only).
  virtual std::unique_ptr<Sequence> start(const at::Tensor& image_state, const ImageInputs& image,
                                          int64_t capacity,
                                          model::CachePlacement placement) const = 0;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;  // "internvl3", "llama32-vision", "qwen2.5-vl"
  virtual const text::ChatTemplate& chat() const = 0;
  // An RGB image [H, W, 3] uint8 → the model's inputs, at most `max_tiles` tiles (the family may
  // cap it lower: Llama 3.2 Vision takes 4).
  virtual ImageInputs preprocess(const at::Tensor& rgb_hwc, int max_tiles) const = 0;
  // The tiles the plan should assume for the largest image `max_tiles` allows.
  virtual int plan_tiles(int max_tiles) const = 0;
  // ImageInputs::prompt_units of that largest image, `tiles` tiles (the plan's prompt length).
  virtual int plan_prompt_units(int tiles) const { return tiles; }
  // max_new_tokens "auto" for the schema: the reference system's budget for this family.
  virtual int auto_max_new_tokens(const extract::FieldSchema& schema) const = 0;
  // The shapes and terms of the memory plan (parameters counted from the safetensors headers,
  // or from config.json for a folder without weights).
  virtual const memory::ModelShape& memory_shape() const = 0;
  // Loads the weights; throws docsift::FileError for missing or misshapen tensors.
  virtual std::unique_ptr<Model> load(const model::Checkpoint& checkpoint,
                                      const model::Numerics& numerics, at::Device device) const = 0;
};

// Choices a family reads from docsift's config.
struct FamilyOptions {
  // The config's values of family_settings() keys (settings.h); each family reads its own.
  SettingValues settings;
  // How images are resized (vision.resample); auto is decided by the family from the checkpoint.
  image::Resample resample = image::Resample::Auto;
  // vision.max_pixels: a lower pixel budget than the image processor's (Qwen2.5-VL); nullopt: its
  // own.
  std::optional<std::int64_t> max_pixels;
};

// The family of a checkpoint folder, from config.json's model_type (then architectures). An
// unknown type is a docsift::FileError that lists the supported ones.
std::unique_ptr<Family> open_family(const model::Checkpoint& checkpoint,
                                    const FamilyOptions& options = {});
// Where the tensors of config.json's family live (`inspect`); empty for a family docsift does not
// run.
std::span<const model::TensorPart> tensor_parts(const nlohmann::json& config);
// "internvl_chat (InternVL3), ..." for messages and --help.
std::string supported_model_types();

}  // namespace docsift::family
