#include "docsift/html_report/document.h"

#include <algorithm>
#include <filesystem>

#include "docsift/io/page_name.h"

namespace docsift::html_report {
namespace {

const std::string kNa = "N/A";

template <class Map>
const typename Map::mapped_type* find_in(const Map* map, const std::string& key) {
  if (map == nullptr) return nullptr;
  const auto it = map->find(key);
  return it == map->end() ? nullptr : &it->second;
}

std::optional<std::string> value_of(const std::map<std::string, std::string>* fields,
                                    const std::string& name) {
  if (fields == nullptr) return std::nullopt;
  const auto it = fields->find(name);
  if (it == fields->end() || it->second == kNa || it->second.empty()) return std::nullopt;
  return it->second;
}

// The document type the page's fields are chosen by: the truth's, else the one read.
std::string type_of(const std::map<std::string, std::string>* truth,
                    const std::map<std::string, std::string>* read) {
  const std::string field(extract::kDocumentTypeField);
  if (auto t = value_of(truth, field)) return *t;
  if (auto r = value_of(read, field)) return *r;
  return "";
}

}  // namespace

std::string eval_key(const journal::Record& record) {
  return std::string(io::document_key(std::filesystem::path(record.file).filename().string()));
}

std::vector<FieldView> field_views(const journal::Record& record, const Context& context) {
  const std::string key = eval_key(record);
  const auto* read = record.ok() && record.fields ? &*record.fields : nullptr;
  const auto* truth = find_in(context.truth, key);
  const eval::ImageScore* const* score = find_in(&context.scores, key);
  const auto* baseline = find_in(context.baseline, key);
  const bool baseline_known = baseline != nullptr || context.baseline_failed.count(key) != 0;
  const std::string type = type_of(truth, read);
  std::set<std::string> review;
  if (record.review) review.insert(record.review->begin(), record.review->end());
  std::vector<FieldView> out;
  for (const extract::Field& field : context.schema.fields) {
    FieldView v;
    v.name = field.name;
    v.value = value_of(read, field.name);
    if (truth != nullptr) {
      const auto it = truth->find(field.name);
      if (it != truth->end()) v.truth = it->second;
    }
    if (score != nullptr) {
      const auto it = (*score)->fields.find(field.name);
      if (it != (*score)->fields.end()) v.score = it->second;
    }
    const bool listed = field.applies(type) || v.value || v.score ||
                        (v.truth && *v.truth != kNa && !v.truth->empty());
    if (!listed) continue;
    if (record.confidence) {
      if (const auto it = record.confidence->find(field.name); it != record.confidence->end())
        v.confidence = it->second;
    }
    v.review = review.count(field.name) != 0;
    if (record.corrections) {
      if (const auto c = record.corrections->find(field.name); c != record.corrections->end())
        v.original = c->second.original;
    }
    v.baseline_known = baseline_known;
    v.baseline = value_of(baseline, field.name);
    if (record.boxes) {
      if (const auto it = record.boxes->find(field.name); it != record.boxes->end())
        v.box = it->second;
    }
    out.push_back(std::move(v));
  }
  return out;
}

Entry entry_of(const journal::Record& record, const std::vector<FieldView>& fields,
               std::uint64_t offset) {
  Entry e;
  e.offset = offset;
  e.name = record.file;
  e.status = record.ok() ? "ok" : "failed";
  e.error = record.error;
  e.tier = record.tier;
  for (const std::string& field :
       record.ok() && record.review ? *record.review : std::vector<std::string>{}) {
    QueuedValue q{field, "N/A", "low confidence", std::nullopt, std::nullopt};
    if (record.fields && record.fields->count(field)) q.value = record.fields->at(field);
    if (record.confidence && record.confidence->count(field))
      q.confidence = record.confidence->at(field);
    if (!q.confidence) q.reason = "no confidence";
    if (record.review_reasons && record.review_reasons->count(field))
      q.reason = record.review_reasons->at(field);
    if (record.review_thresholds && record.review_thresholds->count(field))
      q.threshold = record.review_thresholds->at(field);
    e.queue.push_back(std::move(q));
  }
  if (const auto it = record.timings_s.find("total"); it != record.timings_s.end())
    e.seconds = it->second;
  double score_sum = 0;
  int scored = 0, changed = 0;
  bool baseline_known = false;
  for (const FieldView& f : fields) {
    if (f.name == extract::kDocumentTypeField && f.value) e.type = *f.value;
    if (f.name == extract::kDocumentTypeField && e.type.empty() && f.truth && *f.truth != kNa)
      e.type = *f.truth;
    e.fields_read += f.value ? 1 : 0;
    e.review += f.review ? 1 : 0;
    e.wrong += f.wrong() ? 1 : 0;
    if (f.review || f.wrong()) e.flagged.push_back(f.name);
    if (f.score) {
      score_sum += *f.score;
      ++scored;
    }
    baseline_known = baseline_known || f.baseline_known;
    changed += f.changed() ? 1 : 0;
  }
  // The document's accuracy as eval computes it: the mean over the fields it scored (a page with
  // no prediction scores 0 in each).
  if (scored > 0) e.accuracy = score_sum / scored;
  if (baseline_known) e.changed = changed;
  return e;
}

bool worse_first(const Entry& a, const Entry& b) {
  if (a.failed() != b.failed()) return a.failed();
  const int attention_a = a.review + a.wrong, attention_b = b.review + b.wrong;
  if (attention_a != attention_b) return attention_a > attention_b;
  const double acc_a = a.accuracy.value_or(1.0), acc_b = b.accuracy.value_or(1.0);
  if (acc_a != acc_b) return acc_a < acc_b;
  return a.name < b.name;
}

}  // namespace docsift::html_report
