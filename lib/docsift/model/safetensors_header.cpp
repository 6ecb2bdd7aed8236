#include "docsift/model/safetensors_header.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::model {
namespace {

using nlohmann::json;

// Nesting in a valid header is at most 3 (root / entry / shape array).
constexpr int kMaxJsonDepth = 3;

[[noreturn]] void fail(const std::string& label, const std::string& what) {
  throw FileError(label + ": invalid safetensors header: " + what +
                  " (the file is corrupt or not a safetensors file; re-download or re-convert it)");
}

[[noreturn]] void fail_tensor(const std::string& label, const std::string& name,
                              const std::string& what) {
  fail(label, "tensor '" + name + "': " + what);
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

std::uint64_t as_u64(const json& value, const std::string& label, const std::string& name,
                     const char* field) {
  if (!value.is_number_unsigned()) {
    fail_tensor(label, name,
                std::string(field) + " must hold non-negative integers, got " + value.dump());
  }
  return value.get<std::uint64_t>();
}

TensorEntry parse_entry(const std::string& name, const json& entry, std::uint64_t data_size,
                        const std::string& label) {
  if (!entry.is_object()) fail_tensor(label, name, "entry is not an object");
  for (const auto& [key, value] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      fail_tensor(label, name, "unexpected field '" + key + "'");
    }
  }
  const auto dtype_it = entry.find("dtype");
  const auto shape_it = entry.find("shape");
  const auto offsets_it = entry.find("data_offsets");
  if (dtype_it == entry.end() || shape_it == entry.end() || offsets_it == entry.end()) {
    fail_tensor(label, name, "needs dtype, shape and data_offsets");
  }
  if (!dtype_it->is_string()) fail_tensor(label, name, "dtype is not a string");
  const auto dtype = dtype_from_name(dtype_it->get_ref<const std::string&>());
  if (!dtype) {
    fail_tensor(label, name, "unknown dtype '" + dtype_it->get<std::string>() + "'");
  }

  TensorEntry out{name, *dtype, {}, 0, 0};
  if (!shape_it->is_array()) fail_tensor(label, name, "shape is not an array");
  if (shape_it->size() > kMaxRank) {
    fail_tensor(label, name,
                "shape has " + std::to_string(shape_it->size()) + " dimensions (at most " +
                    std::to_string(kMaxRank) + ")");
  }
  std::uint64_t numel = 1;
  for (const auto& dim_json : *shape_it) {
    const std::uint64_t dim = as_u64(dim_json, label, name, "shape");
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(numel, dim, &numel)) {
      fail_tensor(label, name, "shape " + shape_it->dump() + " overflows");
    }
    out.shape.push_back(static_cast<std::int64_t>(dim));
  }
  std::uint64_t expected_bytes = 0;
  if (__builtin_mul_overflow(numel, dtype_size(*dtype), &expected_bytes)) {
    fail_tensor(label, name, "shape " + shape_it->dump() + " overflows");
  }

  if (!offsets_it->is_array() || offsets_it->size() != 2) {
    fail_tensor(label, name, "data_offsets must be [begin, end]");
  }
  out.begin = as_u64((*offsets_it)[0], label, name, "data_offsets");
  out.end = as_u64((*offsets_it)[1], label, name, "data_offsets");
  if (out.begin > out.end) {
    fail_tensor(label, name, "data_offsets " + offsets_it->dump() + " end before they begin");
  }
  if (out.end > data_size) {
    fail_tensor(label, name,
                "data_offsets " + offsets_it->dump() + " run past the data section (" +
                    std::to_string(data_size) + " bytes); the file may be truncated");
  }
  if (out.end - out.begin != expected_bytes) {
    fail_tensor(label, name,
                "data_offsets " + offsets_it->dump() + " span " +
                    std::to_string(out.end - out.begin) + " bytes but shape " +
                    shape_string(out.shape) + " of " + std::string(dtype_name(*dtype)) + " needs " +
                    std::to_string(expected_bytes));
  }
  return out;
}

}  // namespace

std::uint64_t TensorEntry::numel() const {
  std::uint64_t n = 1;
  for (const auto dim : shape) n *= static_cast<std::uint64_t>(dim);  // validated: no overflow
  return n;
}

SafetensorsHeader parse_safetensors_header(std::span<const std::byte> file,
                                           const std::string& label) {
  if (file.size() < 8) {
    fail(label, "file has " + std::to_string(file.size()) + " bytes, fewer than the 8-byte length");
  }
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) {
    header_len =
        (header_len << 8) | std::to_integer<std::uint64_t>(file[static_cast<std::size_t>(i)]);
  }
  if (header_len > kMaxHeaderBytes) {
    fail(label, "header length " + std::to_string(header_len) + " exceeds the " +
                    std::to_string(kMaxHeaderBytes) + "-byte limit");
  }
  if (header_len > file.size() - 8) {
    fail(label, "header length " + std::to_string(header_len) + " runs past the end of the " +
                    std::to_string(file.size()) + "-byte file");
  }
  if (header_len < 2) fail(label, "header is empty");
  const std::string_view text(reinterpret_cast<const char*>(file.data() + 8), header_len);

  SafetensorsHeader header;
  header.data_offset = 8 + header_len;
  header.data_size = file.size() - header.data_offset;
  const json root = parse_json_strict(text, label + ": safetensors header", kMaxJsonDepth);
  if (!root.is_object()) fail(label, "top level is not a JSON object");

  for (const auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(label, "__metadata__ is not an object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) fail(label, "__metadata__ value for '" + key + "' is not a string");
        header.metadata.emplace(key, value.get<std::string>());
      }
      continue;
    }
    if (name.empty()) fail(label, "a tensor has an empty name");
    header.tensors.push_back(parse_entry(name, entry, header.data_size, label));
  }

  // Non-empty tensors must not share bytes: a writer bug or a crafted file could otherwise alias
  // two weights.
  std::vector<const TensorEntry*> by_offset;
  for (const auto& t : header.tensors) {
    if (t.nbytes() > 0) by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorEntry* a, const TensorEntry* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      fail(label, "tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name +
                      "' overlap in the data section");
    }
  }
  return header;
}

}  // namespace docsift::model
