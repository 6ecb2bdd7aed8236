#include "docsift/family/qwen3vl/config.h"

#include <algorithm>
#include <cmath>

#include "docsift/error.h"
#include "docsift/family/text_config.h"
#include "docsift/json_fields.h"

namespace docsift::family::qwen3vl {
namespace {

VisionConfig parse_vision(const JsonFields& v) {
  VisionConfig c;
  c.depth = v.integer("depth");
  c.hidden = v.integer("hidden_size");
  c.heads = v.integer("num_heads");
  c.intermediate = v.integer("intermediate_size");
  c.out_hidden = v.integer("out_hidden_size");
  c.patch_size = v.integer("patch_size", 16);
  c.merge_size = v.integer("spatial_merge_size", 2);
  c.temporal_patch_size = v.integer("temporal_patch_size", 2);
  c.deepstack_blocks = v.integers("deepstack_visual_indexes");
  const int64_t positions = v.integer("num_position_embeddings", 2304);
  if (const nlohmann::json* rope = v.find("rope_parameters")) {
    const JsonFields r(*rope, v.where() + ": rope_parameters");
    if (const auto type = r.string("rope_type", "axial"); type != "axial")
      r.unsupported("rope_type", type, "axial");
    c.rope_theta = r.number("rope_theta", c.rope_theta);
    if (!(c.rope_theta > 1.0) || c.rope_theta > 1e12) r.fail("\"rope_theta\" must be above 1");
  }
  if (const int64_t channels = v.integer("in_channels", 3); channels != 3)
    v.unsupported("in_channels", std::to_string(channels), "3");
  const std::string act = v.string("hidden_act", "gelu_pytorch_tanh");
  if (act != "gelu_pytorch_tanh" && act != "gelu")
    v.unsupported("hidden_act", act, "gelu_pytorch_tanh, gelu");
  c.tanh_gelu = act == "gelu_pytorch_tanh";
  // Bounds keep every product below (patch values, positions, parameters) far from overflow.
  constexpr int64_t kMax = 1 << 20;
  const auto in_range = [&](int64_t x, int64_t hi) { return x > 0 && x <= hi; };
  if (!in_range(c.depth, 1024) || !in_range(c.hidden, kMax) || !in_range(c.heads, 1024) ||
      c.hidden % c.heads != 0 || c.head_dim() % 4 != 0 || !in_range(c.intermediate, kMax) ||
      !in_range(c.out_hidden, kMax) || !in_range(c.patch_size, 1024) ||
      !in_range(c.merge_size, 16) || !in_range(c.temporal_patch_size, 16) ||
      !in_range(positions, kMax)) {
    v.fail(
        "sizes must be positive and the head size a multiple of 4 (2-D rotary over rows and "
        "columns)");
  }
  // The table is a square grid (transformers takes int(sqrt(n)) as its side).
  c.position_side = static_cast<int64_t>(std::sqrt(static_cast<double>(positions)));
  while ((c.position_side + 1) * (c.position_side + 1) <= positions) ++c.position_side;
  while (c.position_side * c.position_side > positions) --c.position_side;
  if (c.position_side * c.position_side != positions)
    v.fail("\"num_position_embeddings\" must be a square (a side × side grid of positions)");
  std::vector<int64_t> seen;
  for (const int64_t b : c.deepstack_blocks) {
    if (b < 0 || b >= c.depth || std::find(seen.begin(), seen.end(), b) != seen.end()) {
      v.fail("\"deepstack_visual_indexes\" must name distinct blocks below depth " +
             std::to_string(c.depth));
    }
    seen.push_back(b);
  }
  return c;
}

int64_t token_id(const JsonFields& root, const JsonFields& text, const char* key) {
  return root.find(key) != nullptr ? root.integer(key) : text.integer(key, -1);
}

// Every Qwen3-VL decoder layer norms its query and key heads (Qwen3), whatever the text config's
// model_type ("qwen3_vl_text") says.
bool always(const JsonFields& /*text*/) { return true; }

}  // namespace

Qwen3VLConfig parse_qwen3vl_config(const nlohmann::json& config, const std::string& label) {
  const JsonFields root(config, label);
  Qwen3VLConfig c;
  const nlohmann::json* vision = root.find("vision_config");
  if (vision == nullptr) root.fail("missing \"vision_config\"");
  c.vision = parse_vision(JsonFields(*vision, label + ": vision_config"));
  const nlohmann::json* nested = root.find("text_config");
  if (nested == nullptr) root.fail("missing \"text_config\" (Qwen3-VL nests its language model)");
  const JsonFields text(*nested, label + ": text_config");
  c.layout = text.find("rope_parameters") != nullptr ? Qwen3VLConfig::Layout::kTransformers5
                                                     : Qwen3VLConfig::Layout::kHub;
  c.text = model::parse_decoder_config(text, /*attention_bias=*/false, /*tie_embeddings=*/false,
                                       &always);
  // Tying is the top level's tie_word_embeddings (the 4B's true), which the model class reads;
  // a text_config without a top-level value decides alone.
  if (root.find("tie_word_embeddings") != nullptr)
    c.text.tie_embeddings = root.boolean("tie_word_embeddings", false);
  // The sections are always interleaved (transformers 5.23 ignores "mrope_interleaved").
  if (c.text.rope.mrope_section.empty()) {
    text.fail(
        "Qwen3-VL's language model needs multimodal RoPE (rope_scaling or rope_parameters with "
        "\"mrope_section\")");
  }
  if (c.vision.out_hidden != c.text.hidden) {
    root.fail("vision_config.out_hidden_size " + std::to_string(c.vision.out_hidden) +
              " is not the language model's hidden_size " + std::to_string(c.text.hidden));
  }
  if (static_cast<int64_t>(c.vision.deepstack_blocks.size()) > c.text.layers) {
    root.fail("vision_config.deepstack_visual_indexes lists " +
              std::to_string(c.vision.deepstack_blocks.size()) +
              " blocks, more than the language model's " + std::to_string(c.text.layers) +
              " layers that take them");
  }
  c.image_token_id = token_id(root, text, "image_token_id");
  c.vision_start_token_id = token_id(root, text, "vision_start_token_id");
  c.vision_end_token_id = token_id(root, text, "vision_end_token_id");
  return c;
}

std::uint64_t parameter_count(const Qwen3VLConfig& config) {
  using u64 = std::uint64_t;
  const VisionConfig& v = config.vision;
  const u64 h = v.hidden, i = v.intermediate, merged = h * v.merge_size * v.merge_size,
            out = v.out_hidden;
  // LayerNorms with biases, qkv and proj with biases, the GELU MLP with biases.
  const u64 block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (i * h + i) + (h * i + h);
  const u64 mlp = (merged * merged + merged) + (out * merged + out);
  const u64 merger = 2 * h + mlp;                 // LayerNorm over one patch
  const u64 deepstack_merger = 2 * merged + mlp;  // LayerNorm over the merged patches
  const u64 patch = static_cast<u64>(v.grid().patch_values()) * h + h;  // the Conv3d has a bias
  const u64 positions = static_cast<u64>(v.position_side * v.position_side) * h;
  return patch + positions + static_cast<u64>(v.depth) * block + merger +
         static_cast<u64>(v.deepstack_blocks.size()) * deepstack_merger +
         model::decoder_parameters(config.text);
}

}  // namespace docsift::family::qwen3vl
