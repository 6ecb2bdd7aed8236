// The language model's shape as config.json gives it, and what follows from the shape alone
// (parameter counts, the int8 terms of the memory plan). No LibTorch: `inspect` and the plan use it
// without weights, and the fuzz build instruments it (tests/fuzz/fuzz_model_config.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace docsift {
class JsonFields;
}

namespace docsift::model {

// Rotary position embedding (Hugging Face "rotate half" convention) with the scaling rules the
// supported checkpoints use: "default"; "dynamic" (NTK: when the sequence is longer than
// max_position_embeddings, the base grows with the current length, recomputed each step); and
// "llama3" (Llama 3.1+: low frequencies divided by `factor`, high ones kept, a smooth blend
// between, by wavelength against original_max_position_embeddings; docs/models.md, "The text
// decoder").
struct RopeConfig {
  int64_t head_dim = 0;
  double theta = 10000.0;
  bool dynamic = false;
  bool llama3 = false;
  double factor = 1.0;
  int64_t max_position_embeddings = 0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  int64_t original_max_position_embeddings = 8192;       // llama3
  // Multimodal RoPE (rope type "mrope", or mrope_section in rope_parameters): the hd/2
  // frequencies split into (time, row, column) sections of these sizes, each rotated by its own
  // position id (model/mrope.h lays them out). Empty: one position per token. With equal ids
  // (text) it is plain default RoPE.
  std::vector<int64_t> mrope_section;
};

struct DecoderConfig {
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0,
          vocab = 0;
  double rms_eps = 1e-6;
  RopeConfig rope;
  bool attention_bias = false;  // q/k/v biases
  // q_norm and k_norm: RMSNorm weights [hd] applied to every query and key head before RoPE, with
  // rms_eps. head_dim is then usually its own setting, not hidden / heads.
  bool qk_norm = false;
  bool tie_embeddings = false;
  // Layers the decoder leaves to the family that reads this config: it loads nothing at these
  // indices and runs none of them, and forward() refuses to run without them; the family loads
  // and runs them itself (layers of another kind, such as cross-attention layers). They count in
  // `layers`; empty for a decoder whose every layer is its own.
  std::vector<int64_t> family_layers;
  // Rows of the embedding table after the vocabulary that lm_head scores (tokens that only ever
  // appear in prompts); 0 for most checkpoints.
  int64_t embedding_extra_rows = 0;

  bool is_family_layer(int64_t layer) const;
  // The layers the decoder loads and runs, and whose keys and values the KV cache holds.
  int64_t self_layers() const { return layers - static_cast<int64_t>(family_layers.size()); }
  int64_t embedding_table_rows() const { return vocab + embedding_extra_rows; }
};

// Whether a text config's layers norm their query and key heads (DecoderConfig::qk_norm): a
// config says so only through the architecture it names, so the family that knows the names
// decides.
using QkNormRule = bool (*)(const JsonFields& text);

// Reads a Llama-style text config (transformers' text_config, or a checkpoint's own name for
// it). RoPE: "default", "dynamic" and "llama3", from rope_parameters (transformers 5) or rope_theta
// + rope_scaling (4.x and original checkpoints). Throws docsift::FileError naming the key.
// `attention_bias` is the family's default when the config does not say. `qk_norm` is asked once
// the sizes are read (nullptr: no head norms); with head norms there are no q/k/v biases unless
// the config says so.
DecoderConfig parse_decoder_config(const JsonFields& text, bool attention_bias, bool tie_embeddings,
                                   QkNormRule qk_norm = nullptr);

// Every weight of the decoder's own layers, embeddings, final norm and lm_head (unless tied);
// the family counts the layers it keeps for itself (family_layers).
std::uint64_t decoder_parameters(const DecoderConfig& c);
// One layer's norms, projections and MLP at the decoder's widths, without biases or head norms:
// what a family's own layer built from the same parts holds besides its extras.
std::uint64_t decoder_layer_parameters(const DecoderConfig& c);

// What model.quantization: int8 turns into int8, for the loader and the memory plan alike: every
// projection of the decoder's own layers and lm_head (a tied lm_head gets an int8 copy beside the
// dense embedding table), one float32 scale per output row, and the dequantize scratch (the
// largest projection, in the dtype).
struct DecoderInt8Terms {
  std::uint64_t quantized_parameters = 0, added_int8_parameters = 0, quantized_rows = 0;
  int64_t scratch_elements = 0;
};
DecoderInt8Terms decoder_int8_terms(const DecoderConfig& c);
// The int8 parameters and output rows of one layer's projections and MLP at the decoder's widths
// (a family adds them for each of its own layers that it quantizes so).
struct LayerInt8Terms {
  std::uint64_t parameters = 0, rows = 0;
};
LayerInt8Terms decoder_layer_int8_terms(const DecoderConfig& c);

}  // namespace docsift::model
