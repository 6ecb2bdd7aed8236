// libFuzzer target: any byte string is a candidate safetensors file. The parser must either
// accept it (and then every entry it returns must be self-consistent) or throw FileError;
// crashes, sanitizer reports, other exceptions and huge allocations are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "docsift/error.h"
#include "docsift/model/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace docsift::model;
  try {
    const auto header = parse_safetensors_header(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), "fuzz");
    for (const auto& t : header.tensors) {
      if (t.end > header.data_size || t.begin > t.end) std::abort();
      if (t.nbytes() != t.numel() * dtype_size(t.dtype)) std::abort();
      if (header.data_offset + t.end > size) std::abort();
    }
  } catch (const docsift::FileError&) {
  }
  return 0;
}
