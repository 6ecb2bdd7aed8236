// How a model's weights are held and its decoder computes: the names model.dtype,
// model.quantization and model.float16_residual map to (config/ parses them from these tables).
// No LibTorch here; model/precision.h turns them into LibTorch dtypes.
#pragma once

#include <string_view>

#include "docsift/names.h"

namespace docsift::model {

enum class Precision { Float32, Float16, BFloat16 };
// Language-model linear layers: as stored, or int8 weights with one scale per output channel.
enum class Quantization { None, Int8 };
// The residual stream between decoder layers when model.dtype is float16 (some decoders' massive
// activations pass 65,504): kept in float32, left in float16, or clamped to float16's range.
enum class Float16Residual { Float32, Float16, Clamp };

inline constexpr Names<Precision, 3> kPrecisionNames{{{Precision::Float32, "float32"},
                                                      {Precision::Float16, "float16"},
                                                      {Precision::BFloat16, "bfloat16"}}};
inline constexpr Names<Quantization, 2> kQuantizationNames{
    {{Quantization::None, "none"}, {Quantization::Int8, "int8"}}};
inline constexpr Names<Float16Residual, 3> kFloat16ResidualNames{
    {{Float16Residual::Float32, "float32"},
     {Float16Residual::Float16, "float16"},
     {Float16Residual::Clamp, "clamp"}}};

constexpr std::string_view to_string(Precision v) { return name_of(kPrecisionNames, v); }
constexpr std::string_view to_string(Quantization v) { return name_of(kQuantizationNames, v); }
constexpr std::string_view to_string(Float16Residual v) {
  return name_of(kFloat16ResidualNames, v);
}

}  // namespace docsift::model
