#include "docsift/family/qwen25vl/config.h"

#include <algorithm>

#include "docsift/error.h"
#include "docsift/family/text_config.h"
#include "docsift/json_fields.h"

namespace docsift::family::qwen25vl {

bool VisionConfig::full_attention(int64_t block) const {
  return std::find(full_attention_blocks.begin(), full_attention_blocks.end(), block) !=
         full_attention_blocks.end();
}

namespace {

VisionConfig parse_vision(const JsonFields& v) {
  VisionConfig c;
  c.depth = v.integer("depth");
  c.hidden = v.integer("hidden_size");
  c.heads = v.integer("num_heads");
  c.intermediate = v.integer("intermediate_size");
  c.out_hidden = v.integer("out_hidden_size");
  c.patch_size = v.integer("patch_size", 14);
  c.merge_size = v.integer("spatial_merge_size", 2);
  c.temporal_patch_size = v.integer("temporal_patch_size", 2);
  c.window_size = v.integer("window_size", 112);
  c.full_attention_blocks = v.integers("fullatt_block_indexes");
  if (const nlohmann::json* rope = v.find("rope_parameters")) {
    const JsonFields r(*rope, v.where() + ": rope_parameters");
    if (const auto type = r.string("rope_type", "axial"); type != "axial")
      r.unsupported("rope_type", type, "axial");
    c.rope_theta = r.number("rope_theta", c.rope_theta);
    if (!(c.rope_theta > 1.0) || c.rope_theta > 1e12) r.fail("\"rope_theta\" must be above 1");
  }
  // The release writes in_chans, transformers 5 in_channels.
  const int64_t channels = v.integer("in_channels", v.integer("in_chans", 3));
  if (channels != 3) v.unsupported("in_channels", std::to_string(channels), "3");
  if (const auto act = v.string("hidden_act", "silu"); act != "silu")
    v.unsupported("hidden_act", act, "silu");
  // Bounds keep every product below (patch values, windows, parameters) far from overflow.
  constexpr int64_t kMax = 1 << 20;
  const auto in_range = [&](int64_t x, int64_t hi) { return x > 0 && x <= hi; };
  if (!in_range(c.depth, 1024) || !in_range(c.hidden, kMax) || !in_range(c.heads, 1024) ||
      c.hidden % c.heads != 0 || c.head_dim() % 4 != 0 || !in_range(c.intermediate, kMax) ||
      !in_range(c.out_hidden, kMax) || !in_range(c.patch_size, 1024) ||
      !in_range(c.merge_size, 16) || !in_range(c.temporal_patch_size, 16) ||
      !in_range(c.window_size, 1 << 16) || c.window_size % c.factor() != 0) {
    v.fail(
        "sizes must be positive, the head size a multiple of 4 (2-D rotary over rows and columns) "
        "and window_size a multiple of patch_size × spatial_merge_size");
  }
  for (const int64_t b : c.full_attention_blocks) {
    if (b < 0 || b >= c.depth)
      v.fail("\"fullatt_block_indexes\" must name blocks below depth " + std::to_string(c.depth));
  }
  return c;
}

int64_t token_id(const JsonFields& root, const JsonFields& text, const char* key) {
  return root.find(key) != nullptr ? root.integer(key) : text.integer(key, -1);
}

}  // namespace

Qwen25VLConfig parse_qwen25vl_config(const nlohmann::json& config, const std::string& label) {
  const JsonFields root(config, label);
  Qwen25VLConfig c;
  const nlohmann::json* nested = root.find("text_config");
  c.layout = nested != nullptr ? Qwen25VLConfig::Layout::kNested : Qwen25VLConfig::Layout::kHub;
  const nlohmann::json* vision = root.find("vision_config");
  if (vision == nullptr) root.fail("missing \"vision_config\"");
  c.vision = parse_vision(JsonFields(*vision, label + ": vision_config"));
  // The release keeps the language model's keys at the top level; transformers 5 nests them.
  const JsonFields text = nested != nullptr ? JsonFields(*nested, label + ": text_config") : root;
  c.text = family::parse_text_config(text, /*attention_bias=*/true,
                                     root.boolean("tie_word_embeddings", false));
  if (c.text.rope.mrope_section.empty()) {
    text.fail(
        "Qwen2.5-VL's language model needs multimodal RoPE (rope_scaling or rope_parameters with "
        "\"mrope_section\")");
  }
  if (c.vision.out_hidden != c.text.hidden) {
    root.fail("vision_config.out_hidden_size " + std::to_string(c.vision.out_hidden) +
              " is not the language model's hidden_size " + std::to_string(c.text.hidden));
  }
  c.image_token_id = token_id(root, text, "image_token_id");
  c.vision_start_token_id = token_id(root, text, "vision_start_token_id");
  c.vision_end_token_id = token_id(root, text, "vision_end_token_id");
  return c;
}

std::uint64_t parameter_count(const Qwen25VLConfig& config) {
  using u64 = std::uint64_t;
  const VisionConfig& v = config.vision;
  const u64 h = v.hidden, i = v.intermediate, merged = h * v.merge_size * v.merge_size,
            out = v.out_hidden;
  const u64 block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (i * h + i) + (h * i + h);
  const u64 merger = h + (merged * merged + merged) + (out * merged + out);
  return static_cast<u64>(v.patch_values()) * h + static_cast<u64>(v.depth) * block + merger +
         model::decoder_parameters(config.text);
}

}  // namespace docsift::family::qwen25vl
