#include "docsift/model/inspect.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "docsift/format.h"
#include "docsift/model/checkpoint.h"

namespace docsift::model {
namespace {

void add(PartSummary& part, const TensorEntry& t) {
  part.tensors += 1;
  part.parameters += t.numel();
  part.bytes += t.nbytes();
  part.parameters_by_dtype[std::string(dtype_name(t.dtype))] += t.numel();
}

std::string config_string(const nlohmann::json& config, const char* key) {
  const auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string_view model_part(std::string_view name, std::span<const TensorPart> layout) {
  for (const TensorPart& row : layout) {
    if (name.starts_with(row.prefix)) return row.part;
  }
  return "other";
}

ModelSummary summarize(const Checkpoint& checkpoint, std::span<const TensorPart> layout) {
  ModelSummary s;
  s.dir = checkpoint.dir().string();
  const auto& config = checkpoint.config();
  if (const auto it = config.find("architectures");
      it != config.end() && it->is_array() && !it->empty() && it->front().is_string()) {
    s.architecture = it->front().get<std::string>();
  }
  s.model_type = config_string(config, "model_type");
  for (const auto& file : checkpoint.files()) {
    s.files.push_back(file->path().filename().string());
    s.file_bytes += file->header().data_offset + file->header().data_size;
  }
  constexpr std::array<std::string_view, 4> kParts{"vision", "projector", "language", "other"};
  std::array<PartSummary, 4> parts;
  for (std::size_t i = 0; i < kParts.size(); ++i) parts[i].part = kParts[i];
  s.total.part = "total";
  for (const TensorEntry* t : checkpoint.entries()) {
    const auto part = model_part(t->name, layout);
    for (std::size_t i = 0; i < kParts.size(); ++i) {
      if (kParts[i] == part) add(parts[i], *t);
    }
    add(s.total, *t);
  }
  for (auto& part : parts) {
    if (part.tensors > 0) s.parts.push_back(std::move(part));
  }
  return s;
}

nlohmann::json to_json(const ModelSummary& s) {
  auto part_json = [](const PartSummary& p) {
    return nlohmann::json{{"tensors", p.tensors},
                          {"parameters", p.parameters},
                          {"bytes", p.bytes},
                          {"parameters_by_dtype", p.parameters_by_dtype}};
  };
  nlohmann::json parts = nlohmann::json::object();
  for (const auto& p : s.parts) parts[p.part] = part_json(p);
  return {
      {"dir", s.dir},
      {"architecture", s.architecture.empty() ? nlohmann::json() : nlohmann::json(s.architecture)},
      {"model_type", s.model_type.empty() ? nlohmann::json() : nlohmann::json(s.model_type)},
      {"files", s.files},
      {"file_bytes", s.file_bytes},
      {"parts", parts},
      {"total", part_json(s.total)}};
}

std::string to_text(const ModelSummary& s) {
  std::ostringstream out;
  out << "model         " << s.dir << '\n';
  out << "architecture  " << (s.architecture.empty() ? "(config.json names none)" : s.architecture);
  if (!s.model_type.empty()) out << " (model_type " << s.model_type << ')';
  out << '\n';
  if (s.files.empty()) {
    out << "files         no weight files: shapes and parameter counts for a plan come from "
           "config.json\n";
    return out.str();
  }
  out << "files         " << s.files.size() << " safetensors file"
      << (s.files.size() == 1 ? "" : "s") << ", " << human_bytes(s.file_bytes) << '\n';
  char line[160];
  std::snprintf(line, sizeof line, "%-10s %8s %14s %12s  %s\n", "part", "tensors", "parameters",
                "bytes", "dtypes");
  out << '\n' << line;
  auto row = [&](const PartSummary& p) {
    std::string dtypes;
    for (const auto& [dtype, n] : p.parameters_by_dtype) {
      if (!dtypes.empty()) dtypes.append(", ");
      dtypes.append(dtype);
      if (p.parameters_by_dtype.size() > 1) dtypes.append(" ").append(human_count(n));
    }
    std::snprintf(line, sizeof line, "%-10s %8llu %14s %12s  %s\n", p.part.c_str(),
                  static_cast<unsigned long long>(p.tensors), human_count(p.parameters).c_str(),
                  human_bytes(p.bytes).c_str(), dtypes.c_str());
    out << line;
  };
  for (const auto& p : s.parts) row(p);
  row(s.total);
  return out.str();
}

}  // namespace docsift::model
