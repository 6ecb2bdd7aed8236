// Writes safetensors files for tests: well-formed ones from tensors (the reference layout:
// header padded with spaces to 8 bytes, data packed in order) and raw ones with any header
// bytes, for the malformed cases.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace docsift::testing {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// `pad_to` aligns the data section (8 as the reference writer does; 1 leaves it unaligned).
void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       std::size_t pad_to = 8);

// 8-byte length (or `declared_length` instead of the true one), header text, then `data`.
std::string raw_safetensors(const std::string& header_json, const std::string& data = {},
                            std::optional<std::uint64_t> declared_length = std::nullopt);
void write_bytes(const std::filesystem::path& path, const std::string& bytes);

// A config.json plus model.safetensors holding a few tensors per part with InternVL's original
// weight names (vision_model / mlp1 / language_model); returns nothing, writes into `dir`.
void write_tiny_internvl_checkpoint(const std::filesystem::path& dir);

}  // namespace docsift::testing
