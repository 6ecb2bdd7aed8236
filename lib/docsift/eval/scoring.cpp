#include "docsift/eval/scoring.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "docsift/edit_distance.h"
#include "docsift/extract/dates.h"

namespace docsift::eval {
namespace {

using extract::CalendarDate;
using extract::parse_dates;

using extract::FieldType;

std::string lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s)
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// Lower-case without the formatting characters the reference ignores: , $ % ( ) and spaces.
std::string normalized(std::string_view s) {
  std::string out;
  for (const char c : lower(s)) {
    if (c != ',' && c != '$' && c != '%' && c != '(' && c != ')' && c != ' ') out.push_back(c);
  }
  return out;
}

std::string digits(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) out.push_back(c);
  }
  return out;
}

// The number in a money string: everything but digits, '.' and '-' removed, as the reference
// does ("$1,234.56" → 1234.56, "-$12" → -12). nullopt when what is left is not a number.
std::optional<double> money(std::string_view s) {
  std::string kept;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-') kept.push_back(c);
  }
  if (kept.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(kept.c_str(), &end);
  if (end != kept.c_str() + kept.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Money within 1 % of the truth (0.01 absolute when the truth is 0): the reference-2025 rules.
bool money_agrees(std::string_view predicted, std::string_view truth) {
  const auto p = money(predicted), t = money(truth);
  if (!p || !t) return false;
  const double tolerance = *t != 0.0 ? std::abs(*t) * 0.01 : 0.01;
  return std::abs(*p - *t) <= tolerance;
}

// Digit groups as numbers, so "07/07/2025" and "7/7/2025" agree.
std::set<long long> digit_groups(std::string_view s) {
  std::set<long long> groups;
  std::string current;
  const auto flush = [&] {
    if (!current.empty()) groups.insert(std::stoll(current.substr(0, 18)));
    current.clear();
  };
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      current.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  return groups;
}

// Trimmed, non-empty items between any of `separators`.
std::vector<std::string> split_items(std::string_view s, std::string_view separators) {
  std::vector<std::string> items;
  std::string current;
  const auto flush = [&] {
    std::string item = trim(current);
    if (!item.empty()) items.push_back(std::move(item));
    current.clear();
  };
  for (const char c : s) {
    if (separators.find(c) != std::string_view::npos) {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
  return items;
}

// The reference splits on commas too, and compares items lower-cased.
std::vector<std::string> list_items(std::string_view s) {
  std::vector<std::string> items = split_items(s, ",;|\n\r");
  for (std::string& item : items) item = lower(item);
  return items;
}

std::set<std::string> words(std::string_view s) {
  std::istringstream in{std::string(s)};
  std::set<std::string> out;
  std::string w;
  while (in >> w) out.insert(w);
  return out;
}

bool contains_either(const std::string& a, const std::string& b) {
  return a.find(b) != std::string::npos || b.find(a) != std::string::npos;
}

// ---- reference-2025: the reference's first version, quirks included (docs/eval.md) ----

double score_reference(FieldType type, std::string_view predicted, std::string_view truth) {
  switch (type) {
    case FieldType::kNumericId:
      return digits(predicted) == digits(truth) ? 1.0 : 0.0;
    case FieldType::kMonetary:
      return money_agrees(predicted, truth) ? 1.0 : 0.0;
    case FieldType::kDate: {
      const auto p = digit_groups(predicted), t = digit_groups(truth);
      if (!t.empty() && p == t) return 1.0;
      std::size_t shared = 0;
      for (const long long g : p) shared += t.count(g);
      return shared >= 2 ? 0.8 : 0.0;
    }
    case FieldType::kList: {
      const auto p = list_items(predicted), t = list_items(truth);
      if (t.empty()) return p.empty() ? 1.0 : 0.0;
      std::size_t matches = 0;
      for (const std::string& item : p) {
        if (std::any_of(t.begin(), t.end(), [&](const std::string& truth_item) {
              return contains_either(item, truth_item);
            })) {
          ++matches;
        }
      }
      return static_cast<double>(matches) / static_cast<double>(std::max(p.size(), t.size()));
    }
    case FieldType::kText: {
      const std::string p = lower(trim(predicted)), t = lower(trim(truth));
      if (contains_either(p, t)) return 0.9;
      const auto pw = words(p), tw = words(t);
      if (tw.empty()) return 0.0;
      std::size_t shared = 0;
      for (const auto& w : tw) shared += pw.count(w);
      const double overlap = static_cast<double>(shared) / static_cast<double>(tw.size());
      return overlap >= 0.8 ? overlap : 0.0;
    }
  }
  return 0.0;
}

// ---- docsift ----

// The docsift rules' money: the same amount to the cent, or within `tolerance` of the truth
// (relative; eval.money_tolerance). Values that are not amounts score by the normalised match.
bool amounts_agree(std::string_view predicted, std::string_view truth, double tolerance) {
  const auto p = extract::parse_amount(predicted), t = extract::parse_amount(truth);
  if (!p || !t) return normalized(trim(predicted)) == normalized(trim(truth));
  // Whole cents, rounded, so that 0.1 + 0.2 and 0.30 are one amount; an amount too large for
  // cents to be counted exactly compares as it is.
  const auto cents = [](double x) {
    return std::abs(x) < 1e15 ? static_cast<double>(std::llround(x * 100)) : x;
  };
  if (cents(*p) == cents(*t)) return true;
  return tolerance > 0 && std::abs(*p - *t) <= tolerance * std::abs(*t);
}

// ANLS of one pair after the common normalisation: 1 − edit distance ÷ the longer length, 0 below
// 0.5.
double anls(std::string_view predicted, std::string_view truth) {
  const std::string p = normalized(trim(predicted)), t = normalized(trim(truth));
  const std::size_t longer = std::max(p.size(), t.size());
  if (longer == 0) return 1.0;
  // Distances above half the longer length score 0 anyway: stop counting there.
  const int limit = static_cast<int>(longer / 2);
  const int distance = edit_distance(p, t, limit);
  const double score = 1.0 - static_cast<double>(distance) / static_cast<double>(longer);
  return score >= 0.5 ? score : 0.0;
}

// One day against another: the same day 1, the same day and month in another year 0.8 (as the
// reference's current version), anything else 0.
double date_pair(const CalendarDate& p, const CalendarDate& t) {
  if (p == t) return 1.0;
  return p.day == t.day && p.month == t.month ? 0.8 : 0.0;
}

double score_date(std::string_view predicted, std::string_view truth, extract::DateOrder order) {
  const auto p = parse_dates(predicted, order), t = parse_dates(truth, order);
  // Unparseable on either side: only the exact normalised match (already tried) scores.
  if (p.empty() || t.empty() || p.size() != t.size()) return 0.0;
  // A period (STATEMENT_PERIOD) is as good as its worse end.
  double score = 1.0;
  for (std::size_t i = 0; i < t.size(); ++i) score = std::min(score, date_pair(p[i], t[i]));
  return score;
}

// The schema's separators only: | and newlines.
std::vector<std::string> pipe_items(std::string_view s) { return split_items(s, "|\n\r"); }

double score_list(std::string_view predicted, std::string_view truth, extract::ItemType type,
                  const extract::ScoringRules& rules) {
  const auto p = pipe_items(predicted), t = pipe_items(truth);
  if (p.empty() || t.empty()) return p.empty() && t.empty() ? 1.0 : 0.0;
  std::size_t matched = 0;
  if (rules.list_match == extract::ListMatch::kOrdered) {
    for (std::size_t i = 0; i < std::min(p.size(), t.size()); ++i) {
      matched += items_agree(type, p[i], t[i], rules.money_tolerance) ? 1 : 0;
    }
  } else {
    std::vector<bool> used(t.size(), false);
    for (const std::string& item : p) {
      for (std::size_t j = 0; j < t.size(); ++j) {
        if (!used[j] && items_agree(type, item, t[j], rules.money_tolerance)) {
          used[j] = true;
          ++matched;
          break;
        }
      }
    }
  }
  if (matched == 0) return 0.0;
  const double precision = static_cast<double>(matched) / static_cast<double>(p.size());
  const double recall = static_cast<double>(matched) / static_cast<double>(t.size());
  return 2 * precision * recall / (precision + recall);
}

double score_docsift(FieldType type, std::string_view predicted, std::string_view truth,
                     const extract::ScoringRules& rules, extract::ItemType items) {
  switch (type) {
    case FieldType::kNumericId:
      return digits(predicted) == digits(truth) ? 1.0 : 0.0;
    case FieldType::kMonetary:
      return amounts_agree(predicted, truth, rules.money_tolerance) ? 1.0 : 0.0;
    case FieldType::kDate:
      return score_date(predicted, truth, rules.date_order);
    case FieldType::kList:
      return score_list(predicted, truth, items, rules);
    case FieldType::kText:
      return anls(predicted, truth);
  }
  return 0.0;
}

}  // namespace

bool items_agree(extract::ItemType type, std::string_view predicted, std::string_view truth,
                 double money_tolerance) {
  switch (type) {
    case extract::ItemType::kMonetary:
      return amounts_agree(predicted, truth, money_tolerance);
    case extract::ItemType::kNumber: {
      const auto p = money(predicted), t = money(truth);
      return p && t && std::abs(*p - *t) <= 1e-9 * std::max(1.0, std::abs(*t));
    }
    case extract::ItemType::kText:
      return anls(predicted, truth) >= 0.5;
  }
  return false;
}

bool same_day(std::string_view predicted, std::string_view truth, extract::DateOrder order) {
  return normalized(trim(predicted)) == normalized(trim(truth)) ||
         score_date(predicted, truth, order) == 1.0;
}

double score_field(FieldType type, std::string_view predicted, std::string_view truth,
                   const extract::ScoringRules& rules, extract::ItemType items) {
  // Both rule sets: missing values and the common normalisation.
  const bool predicted_missing = extract::is_missing(predicted);
  const bool truth_missing = extract::is_missing(truth);
  if (predicted_missing && truth_missing) return 1.0;
  if (predicted_missing != truth_missing) return 0.0;
  if (rules.rules == extract::RuleSet::kReference2025) {
    return normalized(trim(predicted)) == normalized(trim(truth))
               ? 1.0
               : score_reference(type, predicted, truth);
  }
  // The normalisation drops parentheses, which are a sign in an amount: "($5.00)" is not "$5.00".
  // The docsift rules compare money as amounts first.
  const bool money = type == FieldType::kMonetary ||
                     (type == FieldType::kList && items == extract::ItemType::kMonetary);
  if (!money && normalized(trim(predicted)) == normalized(trim(truth))) return 1.0;
  return score_docsift(type, predicted, truth, rules, items);
}

}  // namespace docsift::eval
