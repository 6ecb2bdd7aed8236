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

namespace docsift::eval {
namespace {

using extract::FieldType;

std::string lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
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

std::vector<std::string> list_items(std::string_view s) {
  std::vector<std::string> items;
  std::string current;
  const auto flush = [&] {
    std::string item = trim(current);
    if (!item.empty()) items.push_back(lower(item));
    current.clear();
  };
  for (const char c : s) {
    if (c == ',' || c == ';' || c == '|' || c == '\n' || c == '\r') {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
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

}  // namespace

double score_field(FieldType type, std::string_view predicted, std::string_view truth) {
  const bool predicted_missing = extract::is_missing(predicted);
  const bool truth_missing = extract::is_missing(truth);
  if (predicted_missing && truth_missing) return 1.0;
  if (predicted_missing != truth_missing) return 0.0;
  if (normalized(trim(predicted)) == normalized(trim(truth))) return 1.0;

  switch (type) {
    case FieldType::kNumericId:
      return digits(predicted) == digits(truth) ? 1.0 : 0.0;
    case FieldType::kMonetary: {
      const auto p = money(predicted), t = money(truth);
      if (!p || !t) return 0.0;
      const double tolerance = *t != 0.0 ? std::abs(*t) * 0.01 : 0.01;
      return std::abs(*p - *t) <= tolerance ? 1.0 : 0.0;
    }
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
        if (std::any_of(t.begin(), t.end(), [&](const std::string& truth_item) { return contains_either(item, truth_item); })) {
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

}  // namespace docsift::eval
