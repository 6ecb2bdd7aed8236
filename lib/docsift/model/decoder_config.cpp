#include "docsift/model/decoder_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/error.h"
#include "docsift/json_fields.h"

namespace docsift::model {

using nlohmann::json;

namespace {

// The RoPE rule of `text`: its theta, and the scaling in rope_parameters or rope_scaling.
RopeConfig parse_rope(const JsonFields& text, int64_t head_dim) {
  RopeConfig rope;
  rope.head_dim = head_dim;
  rope.max_position_embeddings = text.integer("max_position_embeddings");
  // transformers 5 writes rope_parameters {rope_type, factor, rope_theta, ...}; 4.x and the
  // original checkpoints write rope_theta plus rope_scaling {type or rope_type, factor, ...}.
  rope.theta = text.number("rope_theta", 10000.0);
  const json* scaling = text.find("rope_parameters");
  if (scaling == nullptr) scaling = text.find("rope_scaling");
  if (scaling == nullptr) return rope;
  const JsonFields s(*scaling, text.where() + ".rope");
  rope.theta = s.number("rope_theta", rope.theta);
  const std::string type = s.string("rope_type", s.string("type", "default"));
  if (type == "dynamic") {
    rope.dynamic = true;
    rope.factor = s.number("factor", 1.0);
  } else if (type == "llama3") {
    rope.llama3 = true;
    rope.factor = s.number("factor");
    rope.low_freq_factor = s.number("low_freq_factor");
    rope.high_freq_factor = s.number("high_freq_factor");
    rope.original_max_position_embeddings = s.integer("original_max_position_embeddings");
  } else if (type != "default" && type != "mrope") {
    text.unsupported("rope type", "\"" + type + "\"", "default, dynamic, llama3, mrope");
  }
  // 4.x writes {"type": "mrope", "mrope_section": [...]}; 5.x {"rope_type": "default",
  // "mrope_section": [...]}.
  rope.mrope_section = s.integers("mrope_section");
  if (type == "mrope" && rope.mrope_section.empty())
    s.fail("rope type mrope needs \"mrope_section\"");
  return rope;
}

// The sizes' and the RoPE rule's consistency, once everything is read.
void check_decoder_config(const DecoderConfig& c) {
  if (c.hidden <= 0 || c.layers <= 0 || c.heads <= 0 || c.kv_heads <= 0 ||
      c.heads % c.kv_heads != 0 || c.head_dim <= 0 || c.head_dim % 2 != 0 || c.vocab <= 0 ||
      c.intermediate <= 0) {
    throw FileError(
        "language model config: sizes must be positive, heads a multiple of kv heads, head_dim "
        "even");
  }
  if (!c.rope.mrope_section.empty()) {
    int64_t sum = 0;
    bool sizes_ok = c.rope.mrope_section.size() == 3;
    for (const int64_t n : c.rope.mrope_section) {
      sizes_ok = sizes_ok && n > 0 && n <= c.head_dim;  // bounded: the sum cannot overflow
      if (sizes_ok) sum += n;
    }
    if (!sizes_ok || sum != c.head_dim / 2 || c.rope.dynamic || c.rope.llama3) {
      throw FileError(
          "multimodal RoPE needs 3 positive mrope_section sizes summing to head_dim / 2 (" +
          std::to_string(c.head_dim / 2) + ") and no other scaling");
    }
  }
  if (c.rope.dynamic && (c.rope.max_position_embeddings <= 0 || c.rope.factor < 1.0)) {
    throw FileError("dynamic RoPE needs max_position_embeddings > 0 and factor >= 1");
  }
  if (c.rope.llama3 && (c.rope.factor <= 0 || c.rope.low_freq_factor <= 0 ||
                        c.rope.high_freq_factor <= c.rope.low_freq_factor ||
                        c.rope.original_max_position_embeddings <= 0)) {
    throw FileError(
        "llama3 RoPE needs factor > 0, 0 < low_freq_factor < high_freq_factor and "
        "original_max_position_embeddings > 0");
  }
}

}  // namespace

DecoderConfig parse_decoder_config(const JsonFields& text, bool attention_bias, bool tie_embeddings,
                                   QkNormRule qk_norm) {
  DecoderConfig c;
  c.hidden = text.integer("hidden_size");
  c.layers = text.integer("num_hidden_layers");
  c.heads = text.integer("num_attention_heads");
  c.kv_heads = text.integer("num_key_value_heads", c.heads);
  c.head_dim = text.integer("head_dim", c.heads > 0 ? c.hidden / c.heads : 0);
  c.intermediate = text.integer("intermediate_size");
  c.vocab = text.integer("vocab_size");
  c.rms_eps = text.number("rms_norm_eps", 1e-6);
  c.qk_norm = qk_norm != nullptr && qk_norm(text);
  // Checkpoints with head norms say attention_bias: false; one that does not say has none either.
  c.attention_bias = text.boolean("attention_bias", c.qk_norm ? false : attention_bias);
  if (text.boolean("mlp_bias", false)) text.unsupported("mlp_bias", "true", "false");
  if (const auto act = text.string("hidden_act", "silu"); act != "silu")
    text.unsupported("hidden_act", act, "silu");
  if (text.boolean("use_sliding_window", false))
    text.unsupported("use_sliding_window", "true", "false");
  c.rope = parse_rope(text, c.head_dim);
  c.tie_embeddings = text.boolean("tie_word_embeddings", tie_embeddings);
  check_decoder_config(c);
  return c;
}

bool DecoderConfig::is_family_layer(int64_t layer) const {
  return std::find(family_layers.begin(), family_layers.end(), layer) != family_layers.end();
}

std::uint64_t decoder_layer_parameters(const DecoderConfig& c) {
  using u64 = std::uint64_t;
  const u64 h = c.hidden, q_out = c.heads * c.head_dim, kv_out = c.kv_heads * c.head_dim,
            inter = c.intermediate;
  return 2 * h + (q_out + 2 * kv_out) * h + h * q_out + 3 * h * inter;
}

std::uint64_t decoder_parameters(const DecoderConfig& c) {
  using u64 = std::uint64_t;
  const u64 h = c.hidden, q_out = c.heads * c.head_dim, kv_out = c.kv_heads * c.head_dim;
  const u64 bias = (c.attention_bias ? q_out + 2 * kv_out : 0) + (c.qk_norm ? 2 * c.head_dim : 0);
  const u64 layers = static_cast<u64>(c.self_layers()) * (decoder_layer_parameters(c) + bias);
  const u64 vocab = c.vocab, rows = c.embedding_table_rows();
  return rows * h + layers + h + (c.tie_embeddings ? 0 : vocab * h);
}

LayerInt8Terms decoder_layer_int8_terms(const DecoderConfig& c) {
  const std::uint64_t h = c.hidden, q_out = c.heads * c.head_dim, kv_out = c.kv_heads * c.head_dim;
  const std::uint64_t inter = c.intermediate;
  return {h * (2 * q_out + 2 * kv_out) + 3 * h * inter, q_out + 2 * kv_out + h + 2 * inter + h};
}

DecoderInt8Terms decoder_int8_terms(const DecoderConfig& c) {
  const std::uint64_t h = c.hidden, vocab = c.vocab, layers = c.self_layers();
  const LayerInt8Terms layer = decoder_layer_int8_terms(c);
  DecoderInt8Terms t;
  t.quantized_parameters = layers * layer.parameters + (c.tie_embeddings ? 0 : vocab * h);
  t.added_int8_parameters = c.tie_embeddings ? vocab * h : 0;
  t.quantized_rows = layers * layer.rows + vocab;
  t.scratch_elements = std::max(c.intermediate * c.hidden, c.heads * c.head_dim * c.hidden);
  return t;
}

}  // namespace docsift::model
