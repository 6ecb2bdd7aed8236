// Money amounts as documents print them (find_amounts, values.h): a run of digit groups read as
// an amount, the checks that tell it from a date, a time or an id, and OCR's misread amounts.
#include "docsift/ocr/values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/ocr/values_internal.h"

namespace docsift::ocr {
namespace {

using detail::digits_of;
using detail::each_misread;
using detail::is_digit;
using detail::is_letter;
using detail::kDigitMisreads;
using detail::ocr_digits;

// In an amount OCR also reads 4 for a 5, 3 for an 8, and 5 for a 6 or an 8 (the receipts'
// misread totals, bench/ocr/README.md): these and kDigitMisreads are what misread_amounts undoes.
constexpr std::array<std::pair<char, char>, 4> kAmountMisreads{
    {{'4', '5'}, {'3', '8'}, {'5', '6'}, {'5', '8'}}};

// The currency mark that ends at `end` (before an amount) or starts at `begin` (after one), as
// the lexicon writes it; a mark made of letters must stand as a word ("RM", not "ARM").
std::optional<std::pair<std::string, std::size_t>> mark_before(std::string_view s, std::size_t end,
                                                               const Lexicon& lex) {
  std::size_t e = end;
  if (e > 0 && s[e - 1] == ' ') --e;
  std::optional<std::pair<std::string, std::size_t>> best;
  for (const auto& [written, marks] : lex.currencies) {
    for (const auto& mark : marks) {
      if (mark.size() > e) continue;
      const std::size_t b = e - mark.size();
      if (casefold(s.substr(b, mark.size())) != mark) continue;
      if (is_letter(mark.front()) && b > 0 && is_letter(s[b - 1])) continue;
      if (!best || b < best->second) best = {{written, b}};
    }
  }
  return best;
}

std::optional<std::pair<std::string, std::size_t>> mark_after(std::string_view s, std::size_t begin,
                                                              const Lexicon& lex) {
  std::size_t b = begin;
  if (b < s.size() && s[b] == ' ') ++b;
  std::optional<std::pair<std::string, std::size_t>> best;
  for (const auto& [written, marks] : lex.currencies) {
    for (const auto& mark : marks) {
      if (b + mark.size() > s.size() || casefold(s.substr(b, mark.size())) != mark) continue;
      const std::size_t e = b + mark.size();
      if (is_letter(mark.back()) && e < s.size() && is_letter(s[e])) continue;
      if (!best || e > best->second) best = {{written, e}};
    }
  }
  return best;
}

bool is_group_separator(char c) { return c == ',' || c == '.' || c == '\'' || c == ' '; }

// An amount's digits as printed: its groups, each with the separator before it ('\0' for the
// first; "1,234.56" is "1", ",234", ".56"), and where the run ends in the text.
struct DigitRun {
  std::vector<std::pair<char, std::string>> groups{{'\0', {}}};
  std::size_t end = 0;
};

// Whether the space before s[k] joins the digits from s[k] to the run's groups.
bool space_joins(std::string_view s, std::size_t k, const DigitRun& run, bool marked, bool whole,
                 const Lexicon& lexicon) {
  const auto& groups = run.groups;
  // Thousands by spaces: after a mark, before any other separator, three digits exactly.
  const bool three = k + 3 <= s.size() && is_digit(s[k]) && is_digit(s[k + 1]) &&
                     is_digit(s[k + 2]) && (k + 3 == s.size() || !is_digit(s[k + 3]));
  const bool only_spaces =
      std::all_of(groups.begin() + 1, groups.end(), [](const auto& g) { return g.first == ' '; });
  // Or before a mark printed after the amount: "1 210,00 Kč".
  const bool mark_follows = three && k + 6 <= s.size() && (s[k + 3] == ',' || s[k + 3] == '.') &&
                            is_digit(s[k + 4]) && is_digit(s[k + 5]) &&
                            (k + 6 == s.size() || !is_digit(s[k + 6])) &&
                            mark_after(s, k + 6, lexicon).has_value();
  const bool two =
      k + 2 <= s.size() && is_digit(s[k]) && is_digit(s[k + 1]) &&
      (k + 2 == s.size() || (!is_digit(s[k + 2]) && s[k + 2] != '.' && s[k + 2] != ','));
  const bool split_cents = whole && two && groups.size() == 1;  // "45 55", vouched for by a label
  return split_cents || ((marked || mark_follows) && three && only_spaces);
}

// The run from the digit at s[i]: digit groups joined by one separator each. A space joins only
// after a currency mark (`marked`, "$ 1 234.56") or before the two decimals OCR split off
// ("11. 80").
DigitRun digit_run(std::string_view s, std::size_t i, bool marked, bool whole,
                   const Lexicon& lexicon) {
  DigitRun run;
  auto& groups = run.groups;
  std::size_t j = i;
  while (j < s.size()) {
    if (is_digit(s[j])) {
      groups.back().second += s[j++];
      continue;
    }
    const char c = s[j];
    std::size_t k = j + 1;
    if ((c == '.' || c == ',') && k + 2 < s.size() && s[k] == ' ' && is_digit(s[k + 1]) &&
        is_digit(s[k + 2]) && (k + 3 == s.size() || !is_digit(s[k + 3]))) {
      ++k;  // "11. 80"
    } else if (c == ' ' && k + 2 < s.size() && (s[k] == '.' || s[k] == ',') && is_digit(s[k + 1]) &&
               is_digit(s[k + 2]) && (k + 3 == s.size() || !is_digit(s[k + 3]))) {
      groups.push_back({s[k], {}});  // "129 .32"
      j = k + 1;
      continue;
    } else if (c == ' ' && !space_joins(s, k, run, marked, whole, lexicon)) {
      break;
    }
    if (!is_group_separator(c) || k >= s.size() || !is_digit(s[k])) break;
    groups.push_back({c, {}});
    j = k;
  }
  run.end = j;
  return run;
}

// Read the groups: the last is the cents when two digits follow a '.' or ','. Returns the decimal
// mark before them, or '\0' when the run has no cents.
char decimal_mark(DigitRun& run, bool whole) {
  auto& groups = run.groups;
  if (groups.size() > 1 && groups.back().second.size() == 2 &&
      (groups.back().first == '.' || groups.back().first == ',')) {
    return groups.back().first;
  }
  if (whole && groups.size() == 2 && groups.back().second.size() == 2 &&
      groups.back().first == ' ') {
    // A label vouches for it, and OCR read the decimal point as a space: "Total 45 55".
    return ' ';
  }
  if (whole && groups.size() == 2 && groups.back().second.size() == 1 &&
      groups.back().first == '.') {
    // A label vouches for it, and OCR dropped the last zero: "NET TOTAL 174.9".
    groups.back().second += '0';
    return '.';
  }
  return '\0';
}

// The digits of the integer part, its first `int_groups` groups, or nothing when they make none.
std::optional<std::string> integer_digits(const DigitRun& run, std::size_t int_groups,
                                          char decimal) {
  const auto& groups = run.groups;
  std::string integer;
  bool ok = true;
  for (std::size_t g = 0; g < int_groups && ok; ++g) {
    const auto& [sep, digits] = groups[g];
    if (g == 1 && (sep == decimal || digits.size() != 3)) ok = false;
    if (g > 1 && (sep != groups[1].first || digits.size() != 3)) ok = false;
    if (g == 0 && int_groups > 1 && digits.size() > 3) ok = false;
    integer += digits;
  }
  // A group separator that is not one ("1.5", "12.3456") or a space that joined two numbers.
  if (!ok) return std::nullopt;
  if (integer.empty() || integer.size() > 12 || (integer.size() > 1 && integer[0] == '0'))
    return std::nullopt;
  return integer;
}

// Not money: part of a date, a time ("18:52"), a percentage, an id or phone ("03-1234").
bool in_other_number(std::string_view s, std::size_t first, std::size_t run_end,
                     const std::vector<Date>& dates) {
  const bool in_date = std::any_of(dates.begin(), dates.end(), [&](const Date& d) {
    return first < d.end && d.begin < run_end;
  });
  const char after = run_end < s.size() ? s[run_end] : ' ';
  const char after2 = run_end + 1 < s.size() ? s[run_end + 1] : ' ';
  const char before = first > 0 ? s[first - 1] : ' ';
  const char before2 = first > 1 ? s[first - 2] : ' ';
  return in_date || after == ':' || (before == ':' && is_digit(before2)) || after == '%' ||
         (after == ' ' && after2 == '%') || (before == '-' && is_digit(before2)) ||
         (after == '-' && is_digit(after2)) || (after == '/' && is_digit(after2)) ||
         (before == '/' && is_digit(before2));
}

}  // namespace

std::vector<Amount> find_amounts(std::string_view text, const Lexicon& lexicon, bool whole) {
  const std::string digits = ocr_digits(text);
  const std::string_view s = digits;
  std::vector<Amount> out;
  const std::vector<Date> dates = find_dates(s, lexicon);
  std::size_t i = 0;
  while (i < s.size()) {
    if (!is_digit(s[i]) || (i > 0 && (is_digit(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == ','))) {
      ++i;
      continue;
    }
    const std::size_t first = i;
    const auto mark = mark_before(s, i, lexicon);
    DigitRun run = digit_run(s, i, mark.has_value(), whole, lexicon);
    const std::size_t run_end = run.end;
    i = run_end;
    Amount a;
    const char decimal = decimal_mark(run, whole);
    a.has_cents = decimal != '\0';
    const std::size_t int_groups = a.has_cents ? run.groups.size() - 1 : run.groups.size();
    const auto integer = integer_digits(run, int_groups, decimal);
    if (!integer) continue;
    a.begin = first, a.end = run_end;
    if (in_other_number(s, first, run_end, dates)) continue;
    // Glued to a word ("50MM", "A4") unless that word is a currency mark.
    const char before = first > 0 ? s[first - 1] : ' ';
    const char after = run_end < s.size() ? s[run_end] : ' ';
    const auto mark_after_it = mark_after(s, run_end, lexicon);
    if (is_letter(before) && !mark && !a.has_cents) continue;  // "A4", "T1"; "t19.00" is a smudge
    if (is_letter(after) && !mark_after_it && !a.has_cents) continue;
    if (!a.has_cents && !whole && !mark && !mark_after_it) continue;
    a.cents = std::stoll(*integer) * 100 + (a.has_cents ? std::stoll(run.groups.back().second) : 0);
    if (mark) {
      a.currency = mark->first;
      a.begin = mark->second;
    } else if (mark_after_it) {
      a.currency = mark_after_it->first;
      a.end = mark_after_it->second;
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string format_amount(long long cents, std::string_view currency) {
  const std::string whole = std::to_string(cents / 100);
  std::string grouped;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  char frac[4];
  std::snprintf(frac, sizeof frac, "%02lld", cents % 100);
  std::string out(currency);
  if (!out.empty() && std::isalpha(static_cast<unsigned char>(out.front())))
    out += ' ';  // "RM 9.90", "Kč 1.00"
  return out + grouped + "." + frac;
}

bool whole_percentage(long long net, long long tax, long long lowest, long long highest) {
  if (net <= 0 || tax <= 0) return false;
  // The nearest whole percent within the bounds: the distance grows either side of it.
  const long long rate = std::clamp((tax * 100 + net / 2) / net, lowest, highest);
  return std::llabs(net * rate - tax * 100) <= 100;
}

std::vector<long long> misread_amounts(long long cents) {
  std::vector<long long> out;
  if (cents <= 0) return out;
  const std::string digits = std::to_string(cents);
  const auto add = [&](std::size_t place, const std::string& fixed) {
    if (place == 0 && fixed[0] == '0') return;  // no leading zero
    const long long v = std::stoll(fixed);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  each_misread(digits, kDigitMisreads, add);
  each_misread(digits, kAmountMisreads, add);
  return out;
}

std::optional<std::string> parse_amount(std::string_view text, const Lexicon& lexicon, bool whole) {
  const auto all = find_amounts(text, lexicon, whole);
  if (all.empty()) return std::nullopt;
  return format_amount(all.back().cents, all.back().currency);
}

std::optional<long long> amount_cents(std::string_view formatted) {
  const std::string d = digits_of(formatted);
  if (d.empty() || d.size() > 15) return std::nullopt;
  return std::stoll(d);
}

bool negative_at(std::string_view text, std::size_t begin, std::size_t end) {
  std::size_t b = begin;
  while (b > 0) {
    const unsigned char c = static_cast<unsigned char>(text[b - 1]);
    if (c == ' ' || c == '$' || std::isupper(c)) {
      --b;
    } else if (b >= 3 && text.substr(b - 3, 3) == "\u20ac") {  // €
      b -= 3;
    } else if (b >= 2 && text.substr(b - 2, 2) == "\u00a3") {  // £
      b -= 2;
    } else {
      break;
    }
  }
  if (b > 0 && (text[b - 1] == '-' || text[b - 1] == '(')) return true;
  std::size_t e = end;
  while (e < text.size() && text[e] == ' ') ++e;
  if (e < text.size() && text[e] == '-') return true;
  const std::string after = lowercase(text.substr(e, 3));
  return after.rfind("dr", 0) == 0 &&
         (after.size() == 2 || !std::isalnum(static_cast<unsigned char>(after[2])));
}

bool negative_printed(std::string_view cell) {
  const std::size_t first = cell.find_first_of("0123456789");
  if (first == std::string_view::npos) return false;
  return negative_at(cell, first, cell.find_last_of("0123456789") + 1);
}

}  // namespace docsift::ocr
