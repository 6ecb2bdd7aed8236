#include "support/safetensors_writer.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace docsift::testing {
namespace {

std::string dtype_name(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return "F32";
    case at::kHalf:
      return "F16";
    case at::kBFloat16:
      return "BF16";
    case at::kDouble:
      return "F64";
    case at::kLong:
      return "I64";
    case at::kInt:
      return "I32";
    case at::kShort:
      return "I16";
    case at::kChar:
      return "I8";
    case at::kByte:
      return "U8";
    case at::kBool:
      return "BOOL";
    default:
      throw std::runtime_error("test writer: unsupported dtype");
  }
}

}  // namespace

std::string raw_safetensors(const std::string& header_json, const std::string& data,
                            std::optional<std::uint64_t> declared_length) {
  const std::uint64_t n = declared_length.value_or(header_json.size());
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header_json + data;
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       std::size_t pad_to) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    const at::Tensor t = tensor.contiguous();
    const auto nbytes = static_cast<std::size_t>(t.numel()) * t.element_size();
    header[name] = {{"dtype", dtype_name(t.scalar_type())},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {data.size(), data.size() + nbytes}}};
    data.append(static_cast<const char*>(t.data_ptr()), nbytes);
  }
  std::string text = header.dump();
  while ((8 + text.size()) % pad_to != 0) text += ' ';
  write_bytes(path, raw_safetensors(text, data));
}

void write_tiny_internvl_checkpoint(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << R"({"architectures": ["InternVLChatModel"],
    "model_type": "internvl_chat", "llm_config": {"hidden_size": 8}, "vision_config": {"hidden_size": 4}})";
  auto f32 = [](std::int64_t n) { return at::arange(n, at::kFloat); };
  auto bf16 = [](std::int64_t n) { return at::arange(n, at::kFloat).to(at::kBFloat16); };
  write_safetensors(dir / "model.safetensors",
                    {{"vision_model.embeddings.class_embedding", f32(4).view({1, 1, 4})},
                     {"vision_model.encoder.layers.0.attn.qkv.weight", f32(48).view({12, 4})},
                     {"mlp1.1.weight", bf16(32).view({8, 4})},
                     {"language_model.model.embed_tokens.weight", bf16(80).view({10, 8})},
                     {"language_model.lm_head.weight", bf16(80).view({10, 8})}});
}

}  // namespace docsift::testing
