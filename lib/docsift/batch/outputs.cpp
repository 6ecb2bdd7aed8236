#include "docsift/batch/outputs.h"

#include <algorithm>
#include <cstdio>

#include "docsift/io/csv.h"
#include "docsift/io/journal.h"
#include "docsift/text/utf8.h"

namespace docsift::batch {

std::string display_name(const std::string& bytes) {
  if (text::find_invalid_utf8(bytes) == text::kNoError) return bytes;
  std::string out;
  text::append_utf8_lossy(out, bytes);
  return out;
}

RecordName record_name(const std::string& relative) {
  if (text::find_invalid_utf8(relative) == text::kNoError) return {relative, std::nullopt};
  std::string escaped;
  for (const unsigned char c : relative) {
    if (c < 0x20 || c >= 0x7f || c == '%') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      escaped += hex;
    } else {
      escaped += static_cast<char>(c);
    }
  }
  return {display_name(relative), escaped};
}

std::string record_relative(const nlohmann::json& record) {
  const auto bytes = record.find("file_bytes");
  if (bytes == record.end() || !bytes->is_string()) return record.at("file").get<std::string>();
  const std::string& escaped = bytes->get_ref<const std::string&>();
  const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '%' && i + 2 < escaped.size() && hex(escaped[i + 1]) >= 0 && hex(escaped[i + 2]) >= 0) {
      out += static_cast<char>(hex(escaped[i + 1]) * 16 + hex(escaped[i + 2]));
      i += 2;
    } else {
      out += escaped[i];
    }
  }
  return out;
}

std::string csv_header(const std::vector<std::string>& fields) {
  std::string header = "image_file";
  for (const auto& f : fields) header += ',' + io::csv_field(f);
  return header + "\n";
}

std::string csv_row(const nlohmann::json& record, const std::vector<std::string>& fields) {
  if (record.value("status", "") != "ok") return "";
  std::string line = io::csv_field(io::record_key(record));
  const auto& values = record["fields"];
  for (const auto& f : fields) line += ',' + io::csv_field(values.value(f, "N/A"));
  return line + "\n";
}

void Totals::add(const nlohmann::json& record) {
  ++records;
  config_hashes.insert(record.value("config_hash", std::string()));
  const auto& t = record["timings_s"];
  if (record.value("status", "") == "ok") {
    ++ok;
    ++tiers[record["tier"].get<std::string>()];
    generated += record["tokens"]["generated"].get<std::int64_t>();
    model_seconds += t.value("vision", 0.0) + t.value("prefill", 0.0) + t.value("decode", 0.0);
  } else {
    ++failed;
  }
  total_seconds += t.value("total", 0.0);
  const auto& m = record["memory"];
  const auto& before = m.contains("before") ? m["before"] : m.contains("after") ? m["after"] : m;
  high_rss = std::max(high_rss, before.value("host_peak_rss", 0.0));
  if (before.contains("device") && before["device"].is_object()) {
    high_allocated = std::max(high_allocated, before["device"].value("peak_allocated", 0.0));
  }
}

void Totals::describe(nlohmann::json& summary) const {
  summary["tiers"] = nlohmann::json::object();
  for (const auto& [tier, count] : tiers) summary["tiers"][tier] = count;
  auto& throughput = summary["throughput"];
  throughput["seconds_per_image"] = records == 0 ? 0.0 : total_seconds / static_cast<double>(records);
  throughput["model_seconds"] = model_seconds;
  throughput["overhead_seconds"] = total_seconds - model_seconds;
  throughput["generated_tokens"] = generated;
  summary["memory_high_water"] = {{"device_peak_allocated", high_allocated}, {"host_peak_rss", high_rss}};
}

}  // namespace docsift::batch
