// Validating parser for the safetensors header. Nothing in a header is trusted: the 8-byte
// length, the JSON, every dtype, shape and offset are checked before any tensor is touched.
// Format: u64 little-endian N | N bytes of JSON | data section. The JSON maps tensor name to
// {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]} (offsets relative to the data
// section), plus an optional "__metadata__" object of string values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "docsift/model/dtype.h"

namespace docsift::model {

struct TensorEntry {
  std::string name;
  DType dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // byte offsets inside the data section, end exclusive
  std::uint64_t end = 0;

  std::uint64_t numel() const;
  std::uint64_t nbytes() const { return end - begin; }
};

struct SafetensorsHeader {
  std::uint64_t data_offset = 0;  // from the start of the file: 8 + header length
  std::uint64_t data_size = 0;
  std::vector<TensorEntry> tensors;  // sorted by name
  std::map<std::string, std::string> metadata;
};

// Largest header we accept; the reference implementation uses the same cap.
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
inline constexpr std::size_t kMaxRank = 16;

// Parses and validates the header at the start of `file` (the whole file's bytes; only the
// header is read). `label` names the file in error messages. Throws docsift::FileError.
SafetensorsHeader parse_safetensors_header(std::span<const std::byte> file,
                                           const std::string& label);

}  // namespace docsift::model
