// Element types as safetensors names them. Kept free of LibTorch so header parsing (and its
// fuzzer) does not depend on it; safetensors.cpp maps them to at::ScalarType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace docsift::model {

enum class DType : std::uint8_t {
  Bool,
  U8,
  I8,
  U16,
  I16,
  U32,
  I32,
  U64,
  I64,
  F16,
  BF16,
  F32,
  F64,
  F8_E4M3,
  F8_E5M2,
};

// "F32" -> DType::F32; nullopt for a name we do not know.
std::optional<DType> dtype_from_name(std::string_view name);
std::string_view dtype_name(DType dtype);
std::size_t dtype_size(DType dtype);

}  // namespace docsift::model
