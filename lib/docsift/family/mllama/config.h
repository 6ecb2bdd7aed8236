// Llama 3.2 Vision's config.json read into its shapes (the vision encoder's and the text
// decoder's, with its cross-attention layers), the tile arrangements, and the parameters those
// shapes have. No LibTorch: `inspect` plans from it without weights, and the fuzz build
// instruments it (tests/fuzz/fuzz_model_config.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "docsift/model/decoder_config.h"
#include "docsift/model/inspect.h"

namespace docsift {
class JsonFields;
}

namespace docsift::family::mllama {

using model::DecoderConfig;

// Where each part's tensors live (`inspect`): the legacy names and the module tree's, which add
// "model.".
inline constexpr std::array<model::TensorPart, 7> kTensorParts{
    {{"vision_model.", "vision"},
     {"model.vision_model.", "vision"},
     {"multi_modal_projector.", "projector"},
     {"model.multi_modal_projector.", "projector"},
     {"language_model.", "language"},
     {"model.", "language"},
     {"lm_head.", "language"}}};

// Tile arrangements (rows, columns) in the model's order: aspect ratio id = 1 + index.
using AspectRatios = std::vector<std::pair<int, int>>;
// The list transformers and Meta generate for `max_tiles` (outer loop first): for 4,
// (1,1) (1,2) (1,3) (1,4) (2,1) (2,2) (3,1) (4,1).
AspectRatios supported_aspect_ratios(int max_tiles);

struct MllamaVisionConfig {
  int64_t hidden = 0, heads = 0, layers = 0, global_layers = 0, intermediate = 0;
  int64_t image_size = 560, patch_size = 14, max_num_tiles = 4, output_dim = 0;
  double norm_eps = 1e-5;
  std::vector<int64_t> intermediate_layers;  // local layers whose INPUT is kept (Meta's convention)
  AspectRatios aspect_ratios;                // (rows, columns); aspect ratio id = 1 + index

  int64_t patches_per_side() const { return image_size / patch_size; }
  int64_t tokens_per_tile() const { return patches_per_side() * patches_per_side() + 1; }  // P
  int64_t padded_tokens_per_tile() const { return (tokens_per_tile() + 7) / 8 * 8; }       // P8
};

// Reads vision_config; throws docsift::FileError naming the key for anything missing or
// inconsistent.
MllamaVisionConfig parse_mllama_vision_config(const JsonFields& vision);
// Every weight of the encoder (not the projector).
std::uint64_t vision_parameters(const MllamaVisionConfig& c);

struct MllamaConfig {
  MllamaVisionConfig vision;
  // The shared decoder's config: its family layers are the cross-attention layers, which this
  // family loads and runs; the embedding table has 8 rows after the vocabulary.
  DecoderConfig text;
  int64_t image_token_id = -1;

  // The cross-attention layers' indices, in order (text_config's cross_attention_layers).
  const std::vector<int64_t>& cross_layers() const { return text.family_layers; }
};

// Parses config.json; throws docsift::FileError naming the key for anything missing or unsupported.
MllamaConfig parse_mllama_config(const nlohmann::json& config, const std::string& label);
// Every weight the architecture has, from config.json alone: vision encoder, projector, decoder.
std::uint64_t parameter_count(const MllamaConfig& config);

}  // namespace docsift::family::mllama
