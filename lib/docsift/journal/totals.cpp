#include "docsift/journal/totals.h"

#include <optional>

#include "docsift/extract/field.h"

namespace docsift::journal {

std::string record_relative(const Record& record) {
  if (!record.file_bytes) return record.file;
  const std::string& escaped = *record.file_bytes;
  const auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '%' && i + 2 < escaped.size() && hex(escaped[i + 1]) >= 0 &&
        hex(escaped[i + 2]) >= 0) {
      out += static_cast<char>(hex(escaped[i + 1]) * 16 + hex(escaped[i + 2]));
      i += 2;
    } else {
      out += escaped[i];
    }
  }
  return out;
}

void Totals::add(const Record& record) {
  if (record.gone()) {
    ++gone;
    return;
  }
  ++records;
  config_hashes.insert(record.config_hash);
  const auto timing = [&](const char* stage) {
    const auto it = record.timings_s.find(stage);
    return it == record.timings_s.end() ? 0.0 : it->second;
  };
  if (record.ok()) {
    ++ok;
    ++tiers[record.tier];
    if (record.confidence && record.review) {
      ++pages_with_confidence;
      // Queued values with a value, and missing ones a document type requires (a queued field
      // without a value): accepted = with a value, not queued.
      const auto to_review = static_cast<std::int64_t>(record.review->size());
      std::int64_t with_value = 0, missing_queued = 0;
      const auto has_value = [&record](const std::string& field) {
        const std::string* value = entry(record.fields, field);
        return value && !extract::is_missing(*value);
      };
      for (const auto& [field, value] :
           record.fields ? *record.fields : std::map<std::string, std::string>{}) {
        with_value += has_value(field) ? 1 : 0;
      }
      for (const auto& field : *record.review) missing_queued += has_value(field) ? 0 : 1;
      fields_to_review += to_review;
      fields_accepted += std::max<std::int64_t>(0, with_value - (to_review - missing_queued));
      pages_accepted += to_review == 0 ? 1 : 0;
    }
    if (record.corrections && !record.corrections->empty()) {
      ++corrected_pages;
      corrected_fields += static_cast<std::int64_t>(record.corrections->size());
    }
    for (const auto& [field, a] :
         record.agreement ? *record.agreement : std::map<std::string, Record::Agreement>{}) {
      ++values_compared;
      values_agreed += a.agreed ? 1 : 0;
      values_respelled += a.read_value ? 1 : 0;
    }
    if (record.tokens) generated += record.tokens->generated;
    model_seconds += timing("vision") + timing("prefill") + timing("decode");
  } else {
    ++failed;
  }
  total_seconds += timing("total");
  const nlohmann::json m = record.memory.is_object() ? record.memory : nlohmann::json::object();
  const auto& before = m.contains("before") ? m["before"] : m.contains("after") ? m["after"] : m;
  high_rss = std::max(high_rss, before.value("host_peak_rss", 0.0));
  if (before.contains("device") && before["device"].is_object()) {
    high_allocated = std::max(high_allocated, before["device"].value("peak_allocated", 0.0));
  }
}

void Totals::describe(Summary& summary) const {
  summary.ok = ok;
  summary.failed = failed;
  summary.tiers = tiers;
  summary.seconds_per_image = records == 0 ? 0.0 : total_seconds / static_cast<double>(records);
  summary.model_seconds = model_seconds;
  summary.overhead_seconds = total_seconds - model_seconds;
  summary.generated_tokens = generated;
  summary.device_peak_allocated = static_cast<std::int64_t>(high_allocated);
  summary.host_peak_rss = static_cast<std::int64_t>(high_rss);
  if (pages_with_confidence > 0) {
    summary.review =
        Summary::Review{pages_with_confidence, pages_accepted, fields_accepted, fields_to_review};
  }
  if (corrected_pages > 0)
    summary.corrections = Summary::Corrections{corrected_pages, corrected_fields};
  summary.agreement =
      values_compared > 0
          ? std::optional(Summary::Agreement{values_compared, values_agreed, values_respelled})
          : std::nullopt;  // not one read back from an older summary.json (review apply)
}

}  // namespace docsift::journal
