// Qwen2.5-VL's config.json (both layouts: the Hub release's flat one, text keys at the top and
// rope_scaling {type: mrope}; transformers 5's with a nested text_config) and its image
// processor's file, read into shapes, and the parameters those shapes have. No LibTorch:
// `inspect` plans from it without weights, and the fuzz build instruments it
// (tests/fuzz/fuzz_model_config.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/family/patch_processor.h"
#include "docsift/family/settings.h"
#include "docsift/model/decoder_config.h"
#include "docsift/model/inspect.h"

namespace docsift::family::qwen25vl {

using family::RefusedType;

// Where each part's tensors live (`inspect`): the release's visual.* / model.* / lm_head, and
// transformers 5's model.visual.* / model.language_model.*. The merger is the projector.
inline constexpr std::array<model::TensorPart, 6> kTensorParts{
    {{"visual.merger.", "projector"},
     {"model.visual.merger.", "projector"},
     {"visual.", "vision"},
     {"model.visual.", "vision"},
     {"model.", "language"},
     {"lm_head.", "language"}}};

// Its neighbours, refused by name.
inline constexpr std::array<RefusedType, 1> kRefusedTypes{
    {{"qwen2_vl",
      "Qwen2-VL's vision tower (LayerNorm blocks, full attention everywhere) is not Qwen2.5-VL's, "
      "which docsift runs (model_type qwen2_5_vl)"}}};

struct VisionConfig {
  int64_t depth = 0, hidden = 0, heads = 0, intermediate = 0, out_hidden = 0;
  int64_t patch_size = 14, merge_size = 2, temporal_patch_size = 2, window_size = 112;
  double rope_theta = 10000.0;  // the 2-D rotary base (transformers 5 writes it in rope_parameters)
  std::vector<int64_t>
      full_attention_blocks;  // fullatt_block_indexes; every other block attends in windows

  int64_t head_dim() const { return hidden / heads; }
  int64_t patch_values() const {
    return 3 * temporal_patch_size * patch_size * patch_size;
  }                                                           // 1176
  int64_t factor() const { return patch_size * merge_size; }  // 28 px
  int64_t window_merged() const {
    return window_size / merge_size / patch_size;
  }  // 4 merged patches
  bool full_attention(int64_t block) const;
  PatchGrid grid() const { return {patch_size, merge_size, temporal_patch_size}; }
};

struct Qwen25VLConfig {
  enum class Layout { kHub, kNested };
  Layout layout = Layout::kHub;
  VisionConfig vision;
  model::DecoderConfig text;  // Qwen2 with q/k/v biases and multimodal RoPE
  int64_t image_token_id = -1, vision_start_token_id = -1, vision_end_token_id = -1;
};

// Parses config.json; throws docsift::FileError naming the key for anything missing or
// unsupported (video-only settings are ignored: docsift reads images).
Qwen25VLConfig parse_qwen25vl_config(const nlohmann::json& config, const std::string& label);

// Every weight: patch embedding, vision blocks, merger, language model, lm_head unless tied.
std::uint64_t parameter_count(const Qwen25VLConfig& config);

}  // namespace docsift::family::qwen25vl
