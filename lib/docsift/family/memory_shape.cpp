#include "docsift/family/memory_shape.h"

namespace docsift::family {

memory::ModelShape decoder_memory_shape(const model::DecoderConfig& c, std::uint64_t parameters) {
  memory::ModelShape m;
  m.parameters = parameters;
  m.layers = c.self_layers();
  m.heads = c.heads;
  m.kv_heads = c.kv_heads;
  m.head_dim = c.head_dim;
  m.hidden = c.hidden;
  m.intermediate = c.intermediate;
  m.vocab = c.vocab;
  const model::DecoderInt8Terms int8 = model::decoder_int8_terms(c);
  m.quantized_parameters = int8.quantized_parameters;
  m.added_int8_parameters = int8.added_int8_parameters;
  m.quantized_rows = int8.quantized_rows;
  m.scratch_elements = static_cast<std::uint64_t>(int8.scratch_elements);
  return m;
}

}  // namespace docsift::family
