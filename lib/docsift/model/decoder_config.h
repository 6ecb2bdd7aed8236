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
// "llama3" (Llama 3.1+: low frequencies divided by `factor`, high ones kept, a smooth blend between,
// by wavelength against original_max_position_embeddings; docs/models.md, "The text decoder").
struct RopeConfig {
  int64_t head_dim = 0;
  double theta = 10000.0;
  bool dynamic = false;
  bool llama3 = false;
  double factor = 1.0;
  int64_t max_position_embeddings = 0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  int64_t original_max_position_embeddings = 8192;        // llama3
  // Multimodal RoPE (Qwen2.5-VL, rope type "mrope" or mrope_section in rope_parameters): the hd/2
  // frequencies split into (time, row, column) sections of these sizes, each rotated by its own
  // position id. Empty: one position per token. With equal ids (text) it is plain default RoPE.
  std::vector<int64_t> mrope_section;
};

struct DecoderConfig {
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  double rms_eps = 1e-6;
  RopeConfig rope;
  bool attention_bias = false;  // q/k/v biases: Qwen2 has them, Llama and Qwen3 do not
  // Qwen3: q_norm and k_norm, RMSNorm weights [hd] applied to every query and key head before
  // RoPE, with rms_eps. head_dim is then its own setting (128 for Qwen3-8B, 4096 / 32 also 128,
  // but Qwen3-0.6B has 16 heads of 128 over 1024).
  bool qk_norm = false;
  bool tie_embeddings = false;
  // Layers that are not self-attention layers (Llama 3.2 Vision's cross-attention layers, which
  // its own model file loads and runs); the decoder loads and runs every other index.
  std::vector<int64_t> cross_layers;
  // Rows of the embedding table when it has more than lm_head (Mllama appends 8); 0: vocab.
  int64_t embedding_rows = 0;

  bool is_cross(int64_t layer) const;
  int64_t self_layers() const { return layers - static_cast<int64_t>(cross_layers.size()); }
  int64_t embedding_table_rows() const { return embedding_rows > 0 ? embedding_rows : vocab; }
};

// Reads a Qwen2, Qwen3 or Llama text config (transformers' text_config, InternVL's llm_config);
// Qwen3 (model_type "qwen3" or architecture Qwen3ForCausalLM) turns on qk_norm. RoPE:
// "default", "dynamic" and "llama3", from rope_parameters (transformers 5) or rope_theta +
// rope_scaling (4.x and original checkpoints). Throws docsift::FileError naming the key.
// `attention_bias` is the family's default when the config does not say.
DecoderConfig parse_decoder_config(const JsonFields& text, bool attention_bias, bool tie_embeddings);

// Every weight of the decoder (embeddings, layers, final norm, lm_head unless tied); cross-attention
// layers count their q/k norms and two gates.
std::uint64_t decoder_parameters(const DecoderConfig& c);

// What model.quantization: int8 turns into int8, for the loader and the memory plan alike: every
// projection and lm_head (a tied lm_head gets an int8 copy beside the dense embedding table), one
// float32 scale per output row, and the dequantize scratch (the largest projection, in the dtype).
struct DecoderInt8Terms {
  std::uint64_t quantized_parameters = 0, added_int8_parameters = 0, quantized_rows = 0;
  int64_t scratch_elements = 0;
};
DecoderInt8Terms decoder_int8_terms(const DecoderConfig& c);

}  // namespace docsift::model
