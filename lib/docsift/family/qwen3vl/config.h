// Qwen3-VL's config.json (the Hub release's, text_config nested with rope_theta + rope_scaling,
// and transformers 5's with rope_parameters; both keep the language model under text_config) read
// into shapes, and the parameters those shapes have. The image processor's file is the shared
// patch processor's (family/patch_processor.h). No LibTorch: `inspect` plans from it without
// weights, and the fuzz build instruments it (tests/fuzz/fuzz_model_config.cpp).
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

namespace docsift::family::qwen3vl {

using family::RefusedType;

// Where each part's tensors live (`inspect`): model.visual.* (the mergers are the projector),
// model.language_model.* and lm_head; the older flat names (visual.*, model.*) as well.
inline constexpr std::array<model::TensorPart, 8> kTensorParts{
    {{"model.visual.merger.", "projector"},
     {"model.visual.deepstack_merger_list.", "projector"},
     {"visual.merger.", "projector"},
     {"visual.deepstack_merger_list.", "projector"},
     {"model.visual.", "vision"},
     {"visual.", "vision"},
     {"model.", "language"},
     {"lm_head.", "language"}}};

// Its neighbours, refused by name.
inline constexpr std::array<RefusedType, 1> kRefusedTypes{
    {{"qwen3_vl_moe",
      "Qwen3-VL's mixture-of-experts models (30B-A3B, 235B-A22B) are not run; docsift runs the "
      "dense Qwen3-VL (model_type qwen3_vl: 2B, 4B, 8B, 32B)"}}};

struct VisionConfig {
  int64_t depth = 0, hidden = 0, heads = 0, intermediate = 0, out_hidden = 0;
  int64_t patch_size = 16, merge_size = 2, temporal_patch_size = 2;
  // The learned position table: a square grid of side × side entries (num_position_embeddings),
  // interpolated to each image's patch grid.
  int64_t position_side = 48;
  double rope_theta = 10000.0;  // the 2-D rotary base
  bool tanh_gelu = true;        // the blocks' MLP: gelu_pytorch_tanh (true) or erf gelu
  // DeepStack: the vision blocks whose outputs are merged and added to the first decoder layers'
  // hidden states at the image's positions, layer k taking the k-th listed block's.
  std::vector<int64_t> deepstack_blocks;

  int64_t head_dim() const { return hidden / heads; }
  PatchGrid grid() const { return {patch_size, merge_size, temporal_patch_size}; }
};

struct Qwen3VLConfig {
  enum class Layout { kHub, kTransformers5 };  // rope_scaling + rope_theta, or rope_parameters
  Layout layout = Layout::kHub;
  VisionConfig vision;
  model::DecoderConfig text;  // Qwen3: q/k head norms, no biases, interleaved multimodal RoPE
  int64_t image_token_id = -1, vision_start_token_id = -1, vision_end_token_id = -1;
};

// Parses config.json; throws docsift::FileError naming the key for anything missing or
// unsupported (video-only settings are ignored: docsift reads images).
Qwen3VLConfig parse_qwen3vl_config(const nlohmann::json& config, const std::string& label);

// Every weight: patch embedding and position table, vision blocks, the merger and the DeepStack
// mergers, language model, lm_head unless tied.
std::uint64_t parameter_count(const Qwen3VLConfig& config);

}  // namespace docsift::family::qwen3vl
