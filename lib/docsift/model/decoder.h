// The Llama-style decoder that Qwen2 (InternVL3's language model), Qwen3 (InternVL3.5's) and Llama
// (the self-attention layers of Llama 3.2 Vision) share: per layer, RMSNorm → grouped-query
// attention with RoPE (optional q/k/v biases; Qwen3: an RMSNorm on each query and key head before
// RoPE) → residual add; RMSNorm → SwiGLU MLP → residual add. Then a final RMSNorm and lm_head. Linear layers are dense or int8 (linear.h); with float16 the residual
// stream between layers is kept in float32 (model.float16_residual).
// Shapes: T query tokens, H hidden, nh/nkv heads, hd head dim, V vocabulary.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "docsift/model/blocks.h"
#include "docsift/model/kv_cache.h"
#include "docsift/model/linear.h"
#include "docsift/model/precision.h"

namespace docsift {
class JsonFields;
}

namespace docsift::model {

class WeightLoader;

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

// The SwiGLU MLP both kinds of layer use: down(silu(gate(x)) · up(x)). gate and up are stacked
// into one [2·I, H] layer at load (stack_outputs): one matmul, then the halves.
struct SwiGLU {
  LinearWeight gate_up, down;
  std::size_t nbytes() const { return gate_up.nbytes() + down.nbytes(); }
};
SwiGLU load_swiglu(WeightLoader& load, const std::string& prefix, int64_t hidden, int64_t intermediate, bool int8);
at::Tensor swiglu(const SwiGLU& mlp, const at::Tensor& x, const DequantScratch* scratch);

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

class Decoder {
 public:
  // Names: `prefix` + "embed_tokens.weight", "layers.{i}.…", "norm.weight"; lm_head at `lm_head`
  // (absent or tied: the embedding table). With int8 every projection and lm_head are quantized
  // as they stream in, and one dequantize scratch buffer is made for the largest projection.
  Decoder(WeightLoader& load, const DecoderConfig& config, const std::string& prefix, const std::string& lm_head,
          const Numerics& numerics, at::Device device);

  const DecoderConfig& config() const { return config_; }
  // ids [T] int64 → [T, H] in the dtype.
  at::Tensor embed_tokens(const at::Tensor& ids) const;
  // embeds [1, T, H] → the residual stream's dtype (float32 under the float16 guard).
  at::Tensor to_residual(const at::Tensor& embeds) const;
  // Self-attention layer `i` over x [1, T, H] (residual dtype) at positions [cache.length(), +T),
  // appending its keys and values to `cache` layer `cache_layer`; returns the new x.
  at::Tensor layer(int64_t i, const at::Tensor& x, KVCache& cache, int64_t cache_layer, const RopeTables& rope) const;
  // Final norm and lm_head of the last position: float32 logits [V].
  at::Tensor logits(const at::Tensor& x) const;
  // Every layer in order (cache layer i for layer i), then logits(); commits T tokens to the cache.
  // For decoders without cross-attention layers.
  at::Tensor forward(const at::Tensor& embeds, KVCache& cache) const;
  // RoPE tables for layer(), shaped [T, 1, hd]: it rotates q and k as [1, T, heads, hd].
  RopeTables rope(int64_t start, int64_t length) const;
  // x + update in the residual stream's dtype (clamped under float16_residual: clamp).
  at::Tensor residual_add(const at::Tensor& x, const at::Tensor& update) const;
  const Numerics& numerics() const { return numerics_; }
  // The dequantize scratch, shared with the family's own layers (int8 only; else empty).
  const DequantScratch* scratch() const { return &scratch_; }

  std::size_t parameter_bytes() const;  // as held, int8 and scales included
  std::size_t scratch_bytes() const { return scratch_.nbytes(); }
  bool defined() const;                 // every weight loaded (false after a load problem was recorded)

 private:
  struct Layer {  // empty at cross-attention indices
    at::Tensor input_norm, post_norm;
    at::Tensor q_norm, k_norm;  // [hd], Qwen3 only
    LinearWeight qkv, o;  // q, k and v stacked at load: [nh·hd + 2·nkv·hd, H]
    SwiGLU mlp;
  };

  DecoderConfig config_;
  Numerics numerics_;
  at::Device device_;
  at::ScalarType residual_dtype_;
  at::Tensor embed_, norm_;
  LinearWeight lm_head_;  // shares embed_ when tied and not quantized
  std::vector<Layer> layers_;
  DequantScratch scratch_;
};

}  // namespace docsift::model
