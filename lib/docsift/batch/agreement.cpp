#include "docsift/batch/agreement.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "docsift/batch/outputs.h"
#include "docsift/edit_distance.h"
#include "docsift/ocr/known_names.h"

namespace docsift::batch {
namespace {

// Whether `field` of `record` (one its `agreement` names) is compared with other pages: not a value
// a person corrected.
bool compared(const Record& record, const std::string& field) {
  return !record.corrections || record.corrections->count(field) == 0;
}

// `p` with `weight` added to its logit (a probability of 0 or 1 stays: its logit is infinite; so
// does any at weight 0, to the bit).
double shifted(double p, double weight) {
  if (p <= 0 || p >= 1 || weight == 0) return p;
  return 1.0 / (1.0 + std::exp(-(std::log(p / (1 - p)) + weight)));
}

// A key (ocr::words_key) without its spaces: ocr::name_key of the value, what a vendor list is
// matched on; and its ASCII digits alone.
std::string letters(std::string_view key) {
  std::string out;
  for (const char c : key)
    if (c != ' ') out += c;
  return out;
}
std::string digits(std::string_view key) {
  std::string out;
  for (const char c : key)
    if (c >= '0' && c <= '9') out += c;
  return out;
}

// Whether the schema types `field` as a date: the engine keys it by its year.
bool dated(const extract::FieldSchema& schema, const std::string& field) {
  const extract::Field* f = schema.find(field);
  return f != nullptr && f->type == extract::FieldType::kDate;
}

}  // namespace

void PageCounts::add(const Record& record) {
  if (!record.ok() || !record.agreement || !record.fields) return;
  for (const auto& [field, a] : *record.agreement) {
    const auto value = record.fields->find(field);
    if (!compared(record, field) || value == record.fields->end()) continue;
    Value& counted = pages_[{field, a.key}];
    ++counted.pages;
    ++counted.spellings[a.read_value ? *a.read_value : value->second];
    if (a.registration) ++registered_[{field, *a.registration}][a.key];
  }
}

int PageCounts::pages(const std::string& field, const std::string& key) const {
  const auto it = pages_.find({field, key});
  return it == pages_.end() ? 0 : it->second.pages;
}

const PageCounts::Value* PageCounts::nearest(const std::string& field, const std::string& key,
                                             bool same_digits, bool& tied) const {
  const std::string own = letters(key), own_digits = digits(key);
  const Value* found = nullptr;
  int best = 0;
  tied = false;
  for (auto it = pages_.lower_bound({field, ""}); it != pages_.end() && it->first.first == field;
       ++it) {
    const std::string& theirs_key = it->first.second;
    if (it->second.pages < 2 || theirs_key == key ||
        (digits(theirs_key) == own_digits) != same_digits)
      continue;
    const std::string theirs = letters(theirs_key);
    const int allowed = ocr::KnownNames::edits_allowed(theirs.size());
    const auto gap = static_cast<long>(theirs.size()) - static_cast<long>(own.size());
    if (std::labs(gap) > allowed) continue;
    const int d = edit_distance(own, theirs, allowed);
    if (d > allowed) continue;
    if (found == nullptr || d < best) {
      found = &it->second, best = d, tied = false;
    } else if (d == best) {
      tied = true;
    }
  }
  return found;
}

std::string PageCounts::Value::spelling() const {
  const std::string* out = nullptr;
  int most = 0;
  for (const auto& [text, count] : spellings) {  // byte order: the first of equals
    if (count > most) out = &text, most = count;
  }
  return out ? *out : std::string();
}

std::optional<std::string> PageCounts::spelling_near(const std::string& field,
                                                     const std::string& key) const {
  bool tied = false;
  const Value* near = nearest(field, key, /*same_digits=*/true, tied);
  if (near == nullptr || tied) return std::nullopt;
  return near->spelling();
}

std::optional<std::string> PageCounts::spelling_apart(const std::string& field,
                                                      const std::string& key) const {
  bool tied = false;
  const Value* near = nearest(field, key, /*same_digits=*/false, tied);
  if (near == nullptr) return std::nullopt;
  return near->spelling();
}

std::optional<std::string> PageCounts::spelling_completed(const std::string& field,
                                                          const std::string& registration,
                                                          const std::string& key) const {
  const auto read = registered_.find({field, registration});
  if (read == registered_.end()) return std::nullopt;
  const std::string* most = nullptr;
  int count = 0;
  bool tied = false;
  for (const auto& [theirs, pages] : read->second) {
    if (pages > count) {
      most = &theirs, count = pages, tied = false;
    } else if (pages == count) {
      tied = true;
    }
  }
  if (most == nullptr || tied || count < 2 || !holds_in_part(*most, key)) return std::nullopt;
  return pages_.at({field, *most}).spelling();
}

std::optional<std::string> PageCounts::years_apart(const std::string& field,
                                                   const std::string& key) const {
  // Each year read (a key of four digits: the engine's) and how many pages read it, in order.
  std::map<int, int> years;
  int dated = 0;
  for (auto it = pages_.lower_bound({field, ""}); it != pages_.end() && it->first.first == field;
       ++it) {
    const std::string& year = it->first.second;
    if (year.size() != 4 || digits(year) != year) continue;
    years[std::stoi(year)] += it->second.pages, dated += it->second.pages;
  }
  // No floor on the pages counted: the page's own year is among them and outside the span, so the
  // 9 in 10 below already needs 10 dated pages or more.
  if (key.size() != 4 || digits(key) != key || pages(field, key) != 1) return std::nullopt;
  // The span most pages read: one beginning at a year read holds as many as any other.
  int first = 0, most = 0;
  for (const auto& [start, unused] : years) {
    int in = 0;
    for (auto y = years.find(start); y != years.end() && y->first < start + kDatedSpan; ++y)
      in += y->second;
    if (in > most) first = start, most = in;
  }
  const int own = std::stoi(key);
  if (most * 10 < dated * 9 || (own >= first && own < first + kDatedSpan)) return std::nullopt;
  int last = first;  // the span's last year read
  for (auto y = years.find(first); y != years.end() && y->first < first + kDatedSpan; ++y)
    last = y->first;
  return last == first ? std::to_string(first)
                       : std::to_string(first) + " to " + std::to_string(last);
}

bool holds_in_part(std::string_view whole, std::string_view part) {
  const std::string own = letters(part), theirs = letters(whole);
  return !own.empty() && theirs != own && theirs.find(own) != std::string::npos;
}

std::optional<Record> agreed(const Record& record, const PageCounts& counts,
                             const config::ReviewConfig& review, const extract::FieldSchema& schema,
                             bool spelling) {
  if (!record.ok() || !record.agreement || !record.confidence || !record.fields)
    return std::nullopt;
  Record next = record;
  bool moved = false;
  for (auto& [field, a] : *next.agreement) {
    const auto confidence = next.confidence->find(field);
    const auto value = next.fields->find(field);
    if (!compared(record, field) || confidence == next.confidence->end() ||
        value == next.fields->end())
      continue;
    const std::string own = a.read_value ? *a.read_value : value->second;
    // One at weight 0 (a payer's, the seller's website or phone: no fit has measured what
    // agreement says of them) neither agrees nor is respelled; it is only disputed, by the
    // spelling it would have taken too.
    const bool weighed = a.weight != 0, alike = counts.pages(field, a.key) >= 2;
    bool agrees = weighed && alike;
    std::optional<std::string> taken, disputed;
    if (dated(schema, field)) {  // keyed by its year: only a year apart is disputed
      agrees = false;
      disputed = counts.years_apart(field, a.key);
    } else {
      if (!alike && spelling && weighed) {
        taken = counts.spelling_near(field, a.key);
        if (!taken && a.registration)
          taken = counts.spelling_completed(field, *a.registration, a.key);
        agrees = taken.has_value();
      }
      if (!alike && !taken) disputed = counts.spelling_apart(field, a.key);
      if (!alike && !weighed && !disputed) disputed = counts.spelling_near(field, a.key);
    }
    const std::string& held = taken ? *taken : own;
    const std::optional<std::string> kept = taken ? std::optional<std::string>(own) : std::nullopt;
    const double p = agrees ? shifted(a.read, a.weight) : a.read;
    if (agrees == a.agreed && p == confidence->second && held == value->second &&
        kept == a.read_value && disputed == a.disputed)
      continue;
    a.agreed = agrees;
    a.read_value = kept;
    a.disputed = disputed;
    confidence->second = p;
    value->second = held;
    moved = true;
  }
  if (!moved) return std::nullopt;
  if (const auto type = next.confidence->find("DOCUMENT_TYPE"); type != next.confidence->end())
    next.document_type_confidence = type->second;
  mark_review(next, review, schema);
  return next;
}

}  // namespace docsift::batch
