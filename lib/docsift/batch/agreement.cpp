#include "docsift/batch/agreement.h"

#include <cmath>

#include "docsift/batch/outputs.h"

namespace docsift::batch {
namespace {

// Whether `field` of `record` (one its `agreement` names) is compared with other pages: not a value
// a person corrected.
bool compared(const Record& record, const std::string& field) {
  return !record.corrections || record.corrections->count(field) == 0;
}

// `p` with `weight` added to its logit (a probability of 0 or 1 stays: its logit is infinite).
double shifted(double p, double weight) {
  if (p <= 0 || p >= 1) return p;
  return 1.0 / (1.0 + std::exp(-(std::log(p / (1 - p)) + weight)));
}

}  // namespace

void PageCounts::add(const Record& record) {
  if (!record.ok() || !record.agreement) return;
  for (const auto& [field, a] : *record.agreement) {
    if (compared(record, field)) ++pages_[{field, a.key}];
  }
}

int PageCounts::pages(const std::string& field, const std::string& key) const {
  const auto it = pages_.find({field, key});
  return it == pages_.end() ? 0 : it->second;
}

std::optional<Record> agreed(const Record& record, const PageCounts& counts,
                             const config::ReviewConfig& review,
                             const extract::FieldSchema& schema) {
  if (!record.ok() || !record.agreement || !record.confidence) return std::nullopt;
  Record next = record;
  bool moved = false;
  for (auto& [field, a] : *next.agreement) {
    const auto confidence = next.confidence->find(field);
    if (!compared(record, field) || confidence == next.confidence->end()) continue;
    const bool agrees = counts.pages(field, a.key) >= 2;
    const double p = agrees ? shifted(a.read, a.weight) : a.read;
    if (agrees == a.agreed && p == confidence->second) continue;
    a.agreed = agrees;
    confidence->second = p;
    moved = true;
  }
  if (!moved) return std::nullopt;
  if (const auto type = next.confidence->find("DOCUMENT_TYPE"); type != next.confidence->end())
    next.document_type_confidence = type->second;
  mark_review(next, review, schema);
  return next;
}

}  // namespace docsift::batch
