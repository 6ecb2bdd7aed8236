#include "docsift/family/mllama/config.h"

#include <set>

#include "docsift/error.h"
#include "docsift/family/text_config.h"
#include "docsift/json_fields.h"

namespace docsift::family::mllama {
namespace {

// Mllama's embedding table has 8 rows beyond the vocabulary (the first is <|image|>).
constexpr int64_t kExtraEmbeddingRows = 8;

}  // namespace

using model::decoder_parameters;

AspectRatios supported_aspect_ratios(int max_tiles) {
  AspectRatios out;
  for (int a = 1; a <= max_tiles; ++a) {
    for (int b = 1; b <= max_tiles; ++b) {
      if (a * b <= max_tiles) out.emplace_back(a, b);
    }
  }
  return out;
}

MllamaVisionConfig parse_mllama_vision_config(const JsonFields& v) {
  MllamaVisionConfig c;
  c.hidden = v.integer("hidden_size");
  // The stored key is "attention_heads"; transformers maps num_attention_heads onto it.
  c.heads =
      v.find("attention_heads") ? v.integer("attention_heads") : v.integer("num_attention_heads");
  c.layers = v.integer("num_hidden_layers");
  c.global_layers = v.integer("num_global_layers");
  c.intermediate = v.integer("intermediate_size");
  c.image_size = v.square_size("image_size", 560);
  c.patch_size = v.square_size("patch_size", 14);
  c.max_num_tiles = v.integer("max_num_tiles", 4);
  c.output_dim = v.integer("vision_output_dim");
  c.norm_eps = v.number("norm_eps", 1e-5);
  if (v.integer("num_channels", 3) != 3)
    v.unsupported("num_channels", std::to_string(v.integer("num_channels")), "3");
  if (const auto act = v.string("hidden_act", "gelu"); act != "gelu")
    v.unsupported("hidden_act", act, "gelu");
  c.intermediate_layers = v.integers("intermediate_layers_indices");
  if (v.find("intermediate_layers_indices") == nullptr) c.intermediate_layers = {3, 7, 15, 23, 30};
  if (const nlohmann::json* ratios = v.find("supported_aspect_ratios")) {
    if (!ratios->is_array())
      v.fail("\"supported_aspect_ratios\" must be a list of [rows, columns]");
    for (const auto& r : *ratios) {
      if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() ||
          !r[1].is_number_integer() || r[0].get<int>() < 1 || r[1].get<int>() < 1 ||
          r[0].get<int64_t>() * r[1].get<int64_t>() > c.max_num_tiles) {
        v.fail(
            "\"supported_aspect_ratios\" must list [rows, columns] pairs of at most max_num_tiles "
            "tiles");
      }
      c.aspect_ratios.emplace_back(r[0].get<int>(), r[1].get<int>());
    }
  } else {
    c.aspect_ratios = family::mllama::supported_aspect_ratios(static_cast<int>(c.max_num_tiles));
  }
  if (c.hidden <= 0 || c.heads <= 0 || c.hidden % c.heads != 0 || c.layers <= 0 ||
      c.global_layers < 0 || c.intermediate <= 0 || c.patch_size <= 0 ||
      c.image_size % c.patch_size != 0 || c.max_num_tiles < 1 || c.aspect_ratios.empty()) {
    v.fail(
        "sizes are inconsistent (hidden divisible by heads, image_size by patch_size, positive "
        "layer counts)");
  }
  std::set<int64_t> seen;
  for (const int64_t i : c.intermediate_layers) {
    if (i < 0 || i >= c.layers || !seen.insert(i).second) {
      v.fail(
          "\"intermediate_layers_indices\" must be distinct local layer indices below "
          "num_hidden_layers");
    }
  }
  if (c.output_dim != c.hidden * static_cast<int64_t>(1 + c.intermediate_layers.size())) {
    v.fail("vision_output_dim " + std::to_string(c.output_dim) + " is not hidden_size × (1 + " +
           std::to_string(c.intermediate_layers.size()) + " intermediate layers)");
  }
  return c;
}

std::uint64_t vision_parameters(const MllamaVisionConfig& c) {
  using u64 = std::uint64_t;
  const u64 d = c.hidden, inter = c.intermediate, p = c.tokens_per_tile(), k = c.max_num_tiles;
  const u64 ids = c.aspect_ratios.size() + 1;  // row 0: no image
  const u64 layer = 4 * d * d + 2 * inter * d + inter + d + 4 * d;
  const u64 embeddings =
      d * 3 * c.patch_size * c.patch_size + d + p * d + 1 + ids * k * p * d + 2 * (ids * k * d + 1);
  return embeddings + 4 * d + c.layers * layer + c.global_layers * (layer + 2);
}

MllamaConfig parse_mllama_config(const nlohmann::json& config, const std::string& label) {
  const JsonFields top(config, label);
  MllamaConfig c;
  c.vision = parse_mllama_vision_config(top.child("vision_config"));
  const JsonFields text = top.child("text_config");
  c.text =
      parse_text_config(text, /*attention_bias=*/false, top.boolean("tie_word_embeddings", false));
  c.text.family_layers = text.find("cross_attention_layers")
                             ? text.integers("cross_attention_layers")
                             : std::vector<int64_t>{3, 8, 13, 18, 23, 28, 33, 38};
  c.text.embedding_extra_rows = kExtraEmbeddingRows;
  std::set<int64_t> seen;
  for (const int64_t i : c.cross_layers()) {
    if (i < 0 || i >= c.text.layers || !seen.insert(i).second) {
      text.fail(
          "\"cross_attention_layers\" must be distinct layer indices below num_hidden_layers");
    }
  }
  if (c.text.self_layers() < 1) text.fail("at least one layer must be a self-attention layer");
  // 4.45 wrote image_token_index; transformers maps image_token_id onto it.
  c.image_token_id = top.find("image_token_index") ? top.integer("image_token_index")
                                                   : top.integer("image_token_id", 128256);
  if (c.image_token_id < c.text.vocab || c.image_token_id >= c.text.embedding_table_rows()) {
    top.fail("image_token_index " + std::to_string(c.image_token_id) + " is not one of the " +
             std::to_string(kExtraEmbeddingRows) + " embedding rows after the vocabulary of " +
             std::to_string(c.text.vocab));
  }
  return c;
}

std::uint64_t parameter_count(const MllamaConfig& c) {
  const std::uint64_t projector =
      static_cast<std::uint64_t>(c.text.hidden) * (c.vision.output_dim + 1);
  // A cross-attention layer: a decoder layer's norms, projections and MLP (no biases), q/k norms
  // [hd] and two gates.
  const std::uint64_t cross = static_cast<std::uint64_t>(c.cross_layers().size()) *
                              (model::decoder_layer_parameters(c.text) + 2 * c.text.head_dim + 2);
  return vision_parameters(c.vision) + projector + decoder_parameters(c.text) + cross;
}

}  // namespace docsift::family::mllama
