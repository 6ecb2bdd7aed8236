#include "docsift/extract/dates.h"

#include <array>
#include <cctype>
#include <string>

namespace docsift::extract {
namespace {

// The text cut into runs of digits and runs of letters; `gap` is what stood before the run.
struct Token {
  std::string text;
  bool number = false;
  std::string gap;
};

std::vector<Token> tokens(std::string_view text) {
  std::vector<Token> out;
  std::string gap;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isdigit(c) || std::isalpha(c)) {
      Token t;
      t.number = std::isdigit(c) != 0;
      t.gap = gap;
      gap.clear();
      while (i < text.size() && (t.number ? std::isdigit(static_cast<unsigned char>(text[i]))
                                          : std::isalpha(static_cast<unsigned char>(text[i])))) {
        t.text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
        ++i;
      }
      out.push_back(std::move(t));
    } else {
      gap.push_back(static_cast<char>(c));
      ++i;
    }
  }
  return out;
}

// 1-12 for an English month name or its abbreviation (sept too), else 0.
int month_of(const std::string& word) {
  static constexpr std::array<std::string_view, 12> kNames{
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  for (std::size_t m = 0; m < kNames.size(); ++m) {
    if (word == kNames[m] || (word.size() == 3 && kNames[m].substr(0, 3) == word))
      return static_cast<int>(m) + 1;
  }
  return word == "sept" ? 9 : 0;
}

bool is_ordinal_suffix(const std::string& word) {
  return word == "st" || word == "nd" || word == "rd" || word == "th";
}

int number_of(const std::string& digits) { return digits.size() > 4 ? -1 : std::stoi(digits); }

// A year as written: 4 digits, or 2 (20YY).
int year_of(const std::string& digits) {
  if (digits.size() == 4) return std::stoi(digits);
  if (digits.size() == 2) return 2000 + std::stoi(digits);
  return -1;
}

bool valid(const CalendarDate& d) {
  static constexpr std::array<int, 12> kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d.year < 1000 || d.month < 1 || d.month > 12 || d.day < 1) return false;
  const bool leap = (d.year % 4 == 0 && d.year % 100 != 0) || d.year % 400 == 0;
  if (d.month == 2 && d.day == 29) return leap;
  return d.day <= kDays[static_cast<std::size_t>(d.month - 1)];
}

bool separator(const std::string& gap) { return gap == "/" || gap == "-" || gap == "."; }
// Between a day, a month name and a year: spaces, a comma, or one of the numeric separators.
bool soft_gap(const std::string& gap) {
  for (const char c : gap) {
    if (c != ' ' && c != ',' && c != '/' && c != '-' && c != '.') return false;
  }
  return gap.size() <= 3;
}

}  // namespace

std::vector<CalendarDate> parse_dates(std::string_view text, DateOrder order) {
  const std::vector<Token> t = tokens(text);
  std::vector<CalendarDate> dates;
  std::size_t i = 0;
  const auto at = [&](std::size_t k) -> const Token* { return k < t.size() ? &t[k] : nullptr; };
  while (i < t.size()) {
    // Numeric: a/b/c with one separator twice.
    const Token *a = at(i), *b = at(i + 1), *c = at(i + 2);
    if (a->number && b && c && b->number && c->number && separator(b->gap) && c->gap == b->gap) {
      CalendarDate d;
      if (a->text.size() == 4) {
        d = {std::stoi(a->text), number_of(b->text), number_of(c->text)};
      } else if (order == DateOrder::kYmd) {
        d = {year_of(a->text), number_of(b->text), number_of(c->text)};
      } else {
        const int first = number_of(a->text), second = number_of(b->text);
        d = order == DateOrder::kDmy ? CalendarDate{year_of(c->text), second, first}
                                     : CalendarDate{year_of(c->text), first, second};
      }
      if (valid(d)) {
        dates.push_back(d);
        i += 3;
        continue;
      }
    }
    // Day, month name, year: "28 June 2024", "28th Jun, 24", "28-Jun-2024".
    if (a->number) {
      std::size_t k = i + 1;
      if (at(k) && !at(k)->number && at(k)->gap.empty() && is_ordinal_suffix(at(k)->text)) ++k;
      const Token *m = at(k), *y = at(k + 1);
      if (m && y && !m->number && y->number && soft_gap(m->gap) && soft_gap(y->gap)) {
        const CalendarDate d{year_of(y->text), month_of(m->text), number_of(a->text)};
        if (valid(d)) {
          dates.push_back(d);
          i = k + 2;
          continue;
        }
      }
    }
    // Month name, day, year: "June 28, 2024", "Jun 28th 2024".
    if (!a->number && b && b->number) {
      std::size_t k = i + 2;
      if (at(k) && !at(k)->number && at(k)->gap.empty() && is_ordinal_suffix(at(k)->text)) ++k;
      const Token* y = at(k);
      if (y && y->number && soft_gap(b->gap) && soft_gap(y->gap)) {
        const CalendarDate d{year_of(y->text), month_of(a->text), number_of(b->text)};
        if (valid(d)) {
          dates.push_back(d);
          i = k + 1;
          continue;
        }
      }
    }
    ++i;
  }
  return dates;
}

}  // namespace docsift::extract
