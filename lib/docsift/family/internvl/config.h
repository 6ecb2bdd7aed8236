// InternVL's config.json (both layouts) read into its shapes, and the parameters those shapes
// have. No LibTorch: `inspect` plans from it without weights, and the fuzz build instruments it
// (tests/fuzz/fuzz_model_config.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/model/decoder_config.h"
#include "docsift/model/inspect.h"

namespace docsift::family::internvl {

using model::DecoderConfig;

// Where each part's tensors live (`inspect`): the original layout's vision_model / mlp1 /
// language_model, the -hf layouts' [model.]vision_tower / [model.]multi_modal_projector /
// model.language_model and lm_head.
inline constexpr std::array<model::TensorPart, 9> kTensorParts{
    {{"vision_model.", "vision"},
     {"vision_tower.", "vision"},
     {"model.vision_tower.", "vision"},
     {"mlp1.", "projector"},
     {"multi_modal_projector.", "projector"},
     {"model.multi_modal_projector.", "projector"},
     {"language_model.", "language"},
     {"model.", "language"},
     {"lm_head.", "language"}}};

struct InternVLConfig {
  enum class Layout { kOriginal, kHf };
  Layout layout = Layout::kOriginal;
  // Vision tower (InternViT).
  int64_t vision_hidden = 0, vision_layers = 0, vision_heads = 0, vision_intermediate = 0;
  int64_t image_size = 448, patch_size = 14;
  double vision_eps = 1e-6;
  // Projector: pixel shuffle by `downsample_ratio`, then LayerNorm(eps 1e-5) → Linear → GELU →
  // Linear.
  double downsample_ratio = 0.5;
  // Language model (Qwen2 with q/k/v biases; Qwen3 for InternVL3.5).
  DecoderConfig text;
  int64_t image_token_id =
      -1;  // -hf configs name it; the original layout takes it from the tokenizer

  int64_t patches_per_side() const { return image_size / patch_size; }
  int64_t tokens_per_tile() const;  // (448/14)² · 0.5² = 256
};

// Parses config.json (either layout); throws docsift::FileError naming the key for anything
// missing or unsupported.
InternVLConfig parse_internvl_config(const nlohmann::json& config, const std::string& label);

// Every weight the architecture has, from config.json alone (a folder without weight files can
// still be planned): vision tower, projector, language model, lm_head unless tied.
std::uint64_t parameter_count(const InternVLConfig& config);

}  // namespace docsift::family::internvl
