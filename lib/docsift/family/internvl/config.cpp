#include "docsift/family/internvl/config.h"

#include "docsift/error.h"
#include "docsift/family/text_config.h"
#include "docsift/json_fields.h"

namespace docsift::family::internvl {
namespace {

using model::decoder_parameters;
using nlohmann::json;

// InternVL3's language model is Qwen2.5 and InternVL3.5's a dense Qwen3 (1B to 38B); the shared
// decoder reads both. InternVL3.5's MoE and GPT-OSS language models are refused by name.
void check_language_model(const JsonFields& text, const std::string& label) {
  const std::string type = text.string("model_type", "");
  const json* archs = text.find("architectures");
  const std::string arch =
      archs != nullptr && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
          ? (*archs)[0].get<std::string>()
          : "";
  const auto refuse = [&](const std::string& what) {
    throw FileError(label + ": the language model is " + what +
                    ", which docsift does not run; it reads InternVL3 (Qwen2.5) and InternVL3.5 "
                    "with a dense Qwen3 (1B to 38B)");
  };
  if (type == "qwen3_moe" || arch == "Qwen3MoeForCausalLM")
    refuse("Qwen3 MoE (InternVL3.5-30B-A3B, -241B-A28B)");
  if (type == "gpt_oss" || arch == "GptOssForCausalLM") refuse("GPT-OSS (InternVL3.5-20B-A4B)");
}

}  // namespace

int64_t InternVLConfig::tokens_per_tile() const {
  const auto side =
      static_cast<int64_t>(static_cast<double>(patches_per_side()) * downsample_ratio);
  return side * side;
}

InternVLConfig parse_internvl_config(const json& config, const std::string& label) {
  const JsonFields top(config, label);
  InternVLConfig c;
  const json* archs = top.find("architectures");
  std::string arch = archs && archs->is_array() && !archs->empty() && (*archs)[0].is_string()
                         ? (*archs)[0].get<std::string>()
                         : "";
  if (arch == "InternVLChatModel") {
    c.layout = InternVLConfig::Layout::kOriginal;
  } else if (arch == "InternVLForConditionalGeneration") {
    c.layout = InternVLConfig::Layout::kHf;
  } else {
    throw FileError(
        label + ": architecture \"" + arch +
        "\" is not supported (supported: InternVLChatModel, InternVLForConditionalGeneration)");
  }
  c.downsample_ratio = top.number("downsample_ratio", 0.5);
  if (c.downsample_ratio != 0.5)
    top.unsupported("downsample_ratio", std::to_string(c.downsample_ratio), "0.5");
  const bool tie_embeddings = top.boolean("tie_word_embeddings", false);
  const JsonFields vision = top.child("vision_config");
  c.vision_hidden = vision.integer("hidden_size");
  c.vision_layers = vision.integer("num_hidden_layers");
  c.vision_heads = vision.integer("num_attention_heads");
  c.vision_intermediate = vision.integer("intermediate_size");
  c.image_size = vision.square_size("image_size", 448);
  c.patch_size = vision.square_size("patch_size", 14);
  c.vision_eps = vision.number("layer_norm_eps", 1e-6);
  if (const auto norm = vision.string("norm_type", "layer_norm"); norm != "layer_norm") {
    vision.unsupported("norm_type", norm, "layer_norm");
  }
  if (const auto act = vision.string("hidden_act", "gelu"); act != "gelu")
    vision.unsupported("hidden_act", act, "gelu");

  if (c.layout == InternVLConfig::Layout::kOriginal) {
    if (top.integer("select_layer", -1) != -1) top.unsupported("select_layer", "not -1", "-1");
    if (const auto ps = top.string("ps_version", "v2"); ps != "v2")
      top.unsupported("ps_version", ps, "v2");
    if (vision.boolean("qk_normalization", false))
      vision.unsupported("qk_normalization", "true", "false");
    if (!vision.boolean("qkv_bias", true)) vision.unsupported("qkv_bias", "false", "true");
    check_language_model(top.child("llm_config"), label);
    c.text = parse_text_config(top.child("llm_config"), /*attention_bias=*/true, tie_embeddings);
  } else {
    c.image_token_id = top.integer("image_token_id");
    if (top.integer("vision_feature_layer", -1) != -1)
      top.unsupported("vision_feature_layer", "not -1", "-1");
    if (const auto s = top.string("vision_feature_select_strategy", "default"); s != "default") {
      top.unsupported("vision_feature_select_strategy", s, "default");
    }
    if (const auto act = top.string("projector_hidden_act", "gelu"); act != "gelu") {
      top.unsupported("projector_hidden_act", act, "gelu");
    }
    if (vision.boolean("use_qk_norm", false)) vision.unsupported("use_qk_norm", "true", "false");
    if (!vision.boolean("attention_bias", true))
      vision.unsupported("attention_bias", "false", "true");
    if (!vision.boolean("use_mean_pooling", true))
      vision.unsupported("use_mean_pooling", "false", "true");
    check_language_model(top.child("text_config"), label);
    c.text = parse_text_config(top.child("text_config"), /*attention_bias=*/true, tie_embeddings);
  }
  if (c.vision_hidden <= 0 || c.vision_layers <= 0 || c.vision_heads <= 0 ||
      c.vision_hidden % c.vision_heads != 0 || c.patch_size <= 0 ||
      c.image_size % c.patch_size != 0 || c.patches_per_side() % 2 != 0) {
    throw FileError(label +
                    ": vision_config sizes are inconsistent (hidden divisible by heads, image by "
                    "patch, an even number of patches per side)");
  }
  return c;
}

std::uint64_t parameter_count(const InternVLConfig& c) {
  using u64 = std::uint64_t;
  const u64 cv = c.vision_hidden, vi = c.vision_intermediate, g = c.patches_per_side(),
            p = c.patch_size;
  const u64 vision = cv + (g * g + 1) * cv + cv * 3 * p * p + cv +
                     c.vision_layers * (4 * cv + 3 * cv * cv + 3 * cv + cv * cv + cv + 2 * vi * cv +
                                        vi + cv + 2 * cv);
  const u64 h = c.text.hidden, shuffled = 4 * cv;
  const u64 projector = 2 * shuffled + h * shuffled + h + h * h + h;
  return vision + projector + decoder_parameters(c.text);
}

}  // namespace docsift::family::internvl
