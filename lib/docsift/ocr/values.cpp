#include "docsift/ocr/values.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <regex>
#include <vector>

#include "docsift/edit_distance.h"

namespace docsift::ocr {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
// ASCII letters and every byte of a multi-byte UTF-8 character (month names such as "März").
bool is_letter(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
}

std::string digits_of(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (is_digit(c)) out += c;
  }
  return out;
}

bool valid_day(int d, int m, int y) {
  static constexpr std::array<int, 12> kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] || y < 1900 || y > 2199) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

// Text as tokens for the date patterns: digit runs, letter runs and single punctuation marks;
// whitespace only separates.
struct Token {
  enum Kind { Num, Word, Mark } kind;
  std::string_view text;
  std::size_t begin, end;
};

std::vector<Token> tokens_of(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    Token::Kind kind = Token::Mark;
    if (is_digit(c)) {
      kind = Token::Num;
      while (j < s.size() && is_digit(s[j])) ++j;
    } else if (is_letter(c)) {
      kind = Token::Word;
      while (j < s.size() && is_letter(s[j])) ++j;
    }
    out.push_back({kind, s.substr(i, j - i), i, j});
    i = j;
  }
  return out;
}

int month_of(std::string_view word, const Lexicon& lexicon) {
  if (word.size() < 3) return 0;
  const std::string folded = casefold(word);
  for (int m = 0; m < 12; ++m) {
    const auto& names = lexicon.months[static_cast<std::size_t>(m)];
    if (std::find(names.begin(), names.end(), folded) != names.end()) return m + 1;
  }
  return 0;
}

// A three-letter month between a day and a year with one separator ("25/Fen/2017"): the one
// three-letter name one letter away, or 0 when none or several are.
int fuzzy_month_abbreviation(std::string_view word, const Lexicon& lexicon) {
  if (word.size() != 3) return 0;
  const std::string folded = casefold(word);
  int found = 0, count = 0;
  for (int m = 0; m < 12; ++m) {
    for (const auto& name : lexicon.months[static_cast<std::size_t>(m)]) {
      // Same length, one edit: one letter replaced.
      if (name.size() == 3 && edit_distance(folded, name, 1) == 1 && found != m + 1) found = m + 1, ++count;
    }
  }
  return count == 1 ? found : 0;
}

// A numeric date with look-alike letters for digits, as a whole run of non-spaces ("O4/09/2U17"):
// ocr_digits turns O, o, I, l and a bar into digits in every number; a U it leaves, as "RM10U. 00"
// may be anything. In a run with a date's shape, at least four real digits and at most two such
// letters, U is 0 too.
std::string date_lookalikes(std::string_view text) {
  static const std::regex kShape(R"(^[0-9OoUIl|]{1,2}([/.\-])[0-9OoUIl|]{1,2}\1[0-9OoUIl|]{2,4}$)");
  std::string out(text);
  std::size_t i = 0;
  while (i < out.size()) {
    while (i < out.size() && out[i] == ' ') ++i;
    std::size_t j = i;
    while (j < out.size() && out[j] != ' ') ++j;
    const std::string run = out.substr(i, j - i);
    const auto digits = std::count_if(run.begin(), run.end(), [](char c) { return is_digit(c); });
    const auto letters = std::count_if(run.begin(), run.end(), [](char c) { return std::string_view("OoUIl|").find(c) != std::string_view::npos; });
    if (letters > 0 && letters <= 2 && digits >= 4 && std::regex_match(run, kShape)) {
      std::replace(out.begin() + static_cast<long>(i), out.begin() + static_cast<long>(j), 'U', '0');
    }
    i = j;
  }
  return out;
}

int number(std::string_view digits) {
  int v = 0;
  for (const char c : digits.substr(0, 6)) v = v * 10 + (c - '0');
  return v;
}

// The digits OCR reads in place of another on receipts (bench/ocr/README.md, "Dates"): a 0 with a
// smudge or a broken stroke as 6, 8, 9, 2 or 4, a 1 with a serif as 7 or 4. Tried one digit at a
// time, and only where a date as read cannot be one; a repair counts only when it is the one way.
constexpr std::array<std::pair<char, char>, 7> kDigitMisreads{
    {{'6', '0'}, {'8', '0'}, {'9', '0'}, {'2', '0'}, {'4', '0'}, {'7', '1'}, {'4', '1'}}};

// In an amount OCR also reads 4 for a 5, 3 for an 8, and 5 for a 6 or an 8 (the receipts'
// misread totals, bench/ocr/README.md): these and kDigitMisreads are what misread_amounts undoes.
constexpr std::array<std::pair<char, char>, 4> kAmountMisreads{{{'4', '5'}, {'3', '8'}, {'5', '6'}, {'5', '8'}}};

// Every reading of `digits` with one misread digit of `table` undone: `f(place, fixed)` for each
// place whose digit is a read one of the table, once per pair. The date and amount repairs
// (repaired_day_month, misread_amounts) both walk these.
template <std::size_t N, class F>
void each_misread(std::string_view digits, const std::array<std::pair<char, char>, N>& table, F&& f) {
  for (std::size_t k = 0; k < digits.size(); ++k) {
    for (const auto& [read, meant] : table) {
      if (digits[k] != read) continue;
      std::string fixed(digits);
      fixed[k] = meant;
      f(k, fixed);
    }
  }
}

// A document is not dated more than a year ahead of the clock.
int latest_year() {
  static const int limit = [] {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    return utc.tm_year + 1900 + 1;
  }();
  return limit;
}

// "2078" on a receipt is "2018" misread, "2618" and "2518" too. A year past latest_year() is
// repaired when one misread of its third digit (kDigitMisreads), or any digit in its second place
// read for the 0 that a year 2000-2099 has there, brings it to 2000 or later and no later than
// latest_year(), and only one does; otherwise it stays as read.
int repaired_year(int y) {
  const int limit = latest_year();
  if (y <= limit || y > 2999) return y;
  int found = 0, count = 0;
  const auto consider = [&](int fixed) {
    if (fixed >= 2000 && fixed <= limit && fixed != found) found = fixed, ++count;
  };
  if (const int hundreds = (y / 100) % 10; hundreds != 0) consider(y - hundreds * 100);
  const int tens = (y / 10) % 10;
  for (const auto& [read, meant] : kDigitMisreads) {
    // In a year, a 4 is a misread 1 only: "2048" is "2018", not "2008".
    if ('0' + tens != read || (read == '4' && meant == '0')) continue;
    consider(y - tens * 10 + (meant - '0') * 10);
  }
  return count == 1 ? found : y;
}

// A year as printed: 4 digits, or 2 (20YY). A 4-digit year past latest_year() that no misread
// explains ("29/09/2059") makes no date.
std::optional<int> year_of(const Token& t) {
  if (t.kind != Token::Num || (t.text.size() != 2 && t.text.size() != 4)) return std::nullopt;
  const int y = number(t.text);
  if (t.text.size() == 2) return 2000 + y;
  const int repaired = repaired_year(y);
  if (repaired > latest_year()) return std::nullopt;
  return repaired;
}

// Day and month read as `a` and `b` that make no date, one of them no day or month at all: the one
// reading that one misread digit (kDigitMisreads) away makes a valid day-first date ("63/05/2018" →
// 03/05, "25/29/2017" → 25/09), or none when no repair or more than one does.
std::optional<std::pair<int, int>> repaired_day_month(std::string_view a, std::string_view b, int y) {
  // Only a number no day or month can be ("63", "29" as a month): a date the calendar lacks
  // ("31/04/2025") was printed so, not misread.
  const int day = number(a), month = number(b);
  if (day >= 1 && day <= 31 && month >= 1 && month <= 12) return std::nullopt;
  std::optional<std::pair<int, int>> found;
  int count = 0;
  for (int which = 0; which < 2; ++which) {
    each_misread(which == 0 ? a : b, kDigitMisreads, [&](std::size_t, const std::string& fixed) {
      const int d = which == 0 ? number(fixed) : number(a), m = which == 1 ? number(fixed) : number(b);
      if (valid_day(d, m, y) && (!found || *found != std::pair{d, m})) found = std::pair{d, m}, ++count;
    });
  }
  return count == 1 ? found : std::nullopt;
}

bool is_mark(const Token& t, std::string_view marks) {
  return t.kind == Token::Mark && t.text.size() == 1 &&
         marks.find(t.text[0]) != std::string_view::npos;
}

// OCR reads a digit as a look-alike: "2O18", "1O.00", "l2/03/2018", "|7-06-2018". Within a run
// of non-spaces that holds two digits or more and no other letters, O and o become 0, and l, I
// and a bar before a digit become 1 (byte for byte, so positions hold).
std::string ocr_digits(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  while (i < out.size()) {
    while (i < out.size() && out[i] == ' ') ++i;
    std::size_t j = i;
    // A currency mark before the number ("RMO.00") is not part of it.
    std::size_t first = i;
    while (first < out.size() && out[first] != ' ' && !is_digit(out[first])) ++first;
    while (first > i && (out[first - 1] == 'O' || out[first - 1] == 'o' || out[first - 1] == 'l' ||
                         out[first - 1] == 'I' || out[first - 1] == '.' || out[first - 1] == ',')) {
      --first;
    }
    if (first < out.size() && out[first] != ' ') i = first;
    j = i;
    int digits = 0, lookalikes = 0, letters = 0, bars = 0;
    for (; j < out.size() && out[j] != ' '; ++j) {
      const char c = out[j];
      digits += is_digit(c) ? 1 : 0;
      lookalikes += (c == 'O' || c == 'o' || c == 'l' || c == 'I') ? 1 : 0;
      letters += is_letter(c) ? 1 : 0;
      bars += c == '|' && j + 1 < out.size() && is_digit(out[j + 1]) ? 1 : 0;  // "|7-06-2018"
    }
    if (digits >= 2 && lookalikes + bars > 0 && lookalikes == letters && lookalikes + bars <= 2) {
      for (std::size_t k = i; k < j; ++k) {
        if (out[k] == 'O' || out[k] == 'o') out[k] = '0';
        if (out[k] == 'l' || out[k] == 'I' || (out[k] == '|' && k + 1 < j && is_digit(out[k + 1])))
          out[k] = '1';
      }
    }
    i = j;
  }
  return out;
}

}  // namespace

std::string casefold(std::string_view s) {
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return lowercase(s);
  }
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                              static_cast<utf8proc_ssize_t>(s.size()), &mapped,
                              static_cast<utf8proc_option_t>(UTF8PROC_CASEFOLD | UTF8PROC_COMPOSE));
  if (n < 0) return lowercase(s);  // not UTF-8: bytes as they are
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  std::free(mapped);
  return out;
}

std::vector<Date> find_dates(std::string_view text, const Lexicon& lexicon, DateOrder order) {
  const std::string digits = ocr_digits(date_lookalikes(text));
  const std::vector<Token> t = tokens_of(digits);
  std::vector<Date> out;
  const auto num = [&](std::size_t i, std::size_t lo, std::size_t hi) {
    return i < t.size() && t[i].kind == Token::Num && t[i].text.size() >= lo &&
           t[i].text.size() <= hi;
  };
  // A number glued to the pattern's ends ("1.2.3.4", "12:30") makes it something else.
  const auto clear_before = [&](std::size_t i) {
    return i < 2 || !(is_mark(t[i - 1], "/.-:") && t[i - 2].kind == Token::Num &&
                      t[i - 2].end == t[i - 1].begin && t[i - 1].end == t[i].begin);
  };
  const auto clear_after = [&](std::size_t i) {  // i: the token after the pattern
    return i + 1 >= t.size() || !(is_mark(t[i], "/.-:") && t[i + 1].kind == Token::Num &&
                                  t[i - 1].end == t[i].begin && t[i].end == t[i + 1].begin);
  };
  const auto add = [&](int d, int m, int y, std::size_t first, std::size_t last, bool numeric) {
    if (!valid_day(d, m, y)) return false;
    out.push_back({d, m, y, t[first].begin, t[last].end, numeric, false, false});
    return true;
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!clear_before(i)) continue;
    // 03/04/2025, 3-4-25, 03.04.2025 (one separator throughout); 2025-04-03.
    if (num(i, 1, 4) && i + 4 < t.size() && is_mark(t[i + 1], "/.-") &&
        t[i + 3].text == t[i + 1].text && num(i + 2, 1, 2) && clear_after(i + 5)) {
      if (num(i, 4, 4) && num(i + 4, 1, 2)) {
        if (add(number(t[i + 4].text), number(t[i + 2].text), number(t[i].text), i, i + 4, false))
          i += 4;
        continue;
      }
      const auto y = year_of(t[i + 4]);
      if (num(i, 1, 2) && y) {
        const int a = number(t[i].text), b = number(t[i + 2].text);
        const bool dmy = valid_day(a, b, *y), mdy = valid_day(b, a, *y);
        if (!dmy && !mdy) {
          if (const auto fixed = repaired_day_month(t[i].text, t[i + 2].text, *y)) {
            add(fixed->first, fixed->second, *y, i, i + 4, true);
            i += 4;
            continue;
          }
        }
        if (dmy || mdy) {
          const bool day_first = order == DateOrder::Dmy ? dmy : !mdy;
          add(day_first ? a : b, day_first ? b : a, *y, i, i + 4, true);
          out.back().day_first_only = dmy && !mdy;
          out.back().month_first_only = mdy && !dmy;
          i += 4;
          continue;
        }
      }
    }
    // 3 April 2025, 06 APR 2018, 20/JAN/2017, 24-MAR-18, 3rd April 2025, 3. März 2025.
    if (num(i, 1, 2)) {
      std::size_t k = i + 1;
      if (k < t.size() && t[k].kind == Token::Word &&
          (t[k].text == "st" || t[k].text == "nd" || t[k].text == "rd" || t[k].text == "th")) {
        ++k;
      }
      while (k < t.size() && is_mark(t[k], "/-.,")) ++k;
      int m = k < t.size() && t[k].kind == Token::Word ? month_of(t[k].text, lexicon) : 0;
      // "25/Fen/2017": one separator on each side, the same, and the year right after.
      if (m == 0 && k == i + 2 && k + 2 < t.size() && t[k].kind == Token::Word && is_mark(t[i + 1], "/-") &&
          t[k + 1].text == t[i + 1].text && year_of(t[k + 2])) {
        m = fuzzy_month_abbreviation(t[k].text, lexicon);
      }
      if (m > 0 && k - i <= 3) {
        std::size_t j = k + 1;
        while (j < t.size() && is_mark(t[j], "/-.,") && j - k <= 2) ++j;
        const auto y = j < t.size() ? year_of(t[j]) : std::nullopt;
        // "2 May 10:30" is a time, not the year 2010.
        const bool time = j + 1 < t.size() && is_mark(t[j + 1], ":");
        if (y && !time && add(number(t[i].text), m, *y, i, j, false)) {
          i = j;
          continue;
        }
      }
    }
    // April 3, 2025; Apr. 3rd 2025.
    if (t[i].kind == Token::Word) {
      if (const int m = month_of(t[i].text, lexicon); m > 0) {
        std::size_t k = i + 1;
        if (k < t.size() && is_mark(t[k], ".")) ++k;
        if (num(k, 1, 2)) {
          std::size_t j = k + 1;
          if (j < t.size() && t[j].kind == Token::Word && t[j].text.size() == 2) ++j;
          if (j < t.size() && is_mark(t[j], ",")) ++j;
          if (num(j, 4, 4) && add(number(t[k].text), m, number(t[j].text), i, j, false)) i = j;
        }
      }
    }
  }
  return out;
}

std::string format_date(const Date& date) {
  char out[32];
  std::snprintf(out, sizeof out, "%02d/%02d/%04d", date.day, date.month, date.year);
  return out;
}

std::optional<std::string> parse_date(std::string_view text, const Lexicon& lexicon,
                                      DateOrder order) {
  const auto all = find_dates(text, lexicon, order);
  if (all.empty()) return std::nullopt;
  return format_date(all.front());
}

std::optional<std::string> parse_period(std::string_view text, const Lexicon& lexicon,
                                        DateOrder order) {
  const auto all = find_dates(text, lexicon, order);
  if (all.size() < 2) return std::nullopt;
  return format_date(all[0]) + " to " + format_date(all[1]);
}

namespace {

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
    // The run: digit groups joined by one separator each. A space joins only after a currency
    // mark ("$ 1 234.56") or before the two decimals OCR split off ("11. 80").
    std::vector<std::pair<char, std::string>> groups{{'\0', {}}};
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
      } else if (c == ' ' && k + 2 < s.size() && (s[k] == '.' || s[k] == ',') &&
                 is_digit(s[k + 1]) && is_digit(s[k + 2]) &&
                 (k + 3 == s.size() || !is_digit(s[k + 3]))) {
        groups.push_back({s[k], {}});  // "129 .32"
        j = k + 1;
        continue;
      } else if (c == ' ') {
        // Thousands by spaces: after a mark, before any other separator, three digits exactly.
        const bool three = k + 3 <= s.size() && is_digit(s[k]) && is_digit(s[k + 1]) &&
                           is_digit(s[k + 2]) && (k + 3 == s.size() || !is_digit(s[k + 3]));
        const bool only_spaces = std::all_of(groups.begin() + 1, groups.end(),
                                             [](const auto& g) { return g.first == ' '; });
        // Or before a mark printed after the amount: "1 210,00 Kč".
        const bool mark_follows =
            three && k + 6 <= s.size() && (s[k + 3] == ',' || s[k + 3] == '.') &&
            is_digit(s[k + 4]) && is_digit(s[k + 5]) &&
            (k + 6 == s.size() || !is_digit(s[k + 6])) && mark_after(s, k + 6, lexicon).has_value();
        const bool two =
            k + 2 <= s.size() && is_digit(s[k]) && is_digit(s[k + 1]) &&
            (k + 2 == s.size() || (!is_digit(s[k + 2]) && s[k + 2] != '.' && s[k + 2] != ','));
        const bool split_cents =
            whole && two && groups.size() == 1;  // "45 55", vouched for by a label
        if (!split_cents && (!(mark || mark_follows) || !three || !only_spaces)) break;
      }
      if (!is_group_separator(c) || k >= s.size() || !is_digit(s[k])) break;
      groups.push_back({c, {}});
      j = k;
    }
    const std::size_t run_end = j;
    i = run_end;
    // Read the groups: the last is the cents when two digits follow a '.' or ','.
    Amount a;
    std::string integer;
    std::size_t int_groups = groups.size();
    char decimal = '\0';
    if (groups.size() > 1 && groups.back().second.size() == 2 &&
        (groups.back().first == '.' || groups.back().first == ',')) {
      decimal = groups.back().first;
      a.has_cents = true;
      --int_groups;
    } else if (whole && groups.size() == 2 && groups.back().second.size() == 2 &&
               groups.back().first == ' ') {
      // A label vouches for it, and OCR read the decimal point as a space: "Total 45 55".
      decimal = ' ';
      a.has_cents = true;
      --int_groups;
    } else if (whole && groups.size() == 2 && groups.back().second.size() == 1 &&
               groups.back().first == '.') {
      // A label vouches for it, and OCR dropped the last zero: "NET TOTAL 174.9".
      groups.back().second += '0';
      decimal = '.';
      a.has_cents = true;
      --int_groups;
    }
    bool ok = true;
    for (std::size_t g = 0; g < int_groups && ok; ++g) {
      const auto& [sep, digits] = groups[g];
      if (g == 1 && (sep == decimal || digits.size() != 3)) ok = false;
      if (g > 1 && (sep != groups[1].first || digits.size() != 3)) ok = false;
      if (g == 0 && int_groups > 1 && digits.size() > 3) ok = false;
      integer += digits;
    }
    // A group separator that is not one ("1.5", "12.3456") or a space that joined two numbers.
    if (!ok) continue;
    if (integer.empty() || integer.size() > 12 || (integer.size() > 1 && integer[0] == '0'))
      continue;
    a.begin = first, a.end = run_end;
    // Not money: part of a date, a time ("18:52"), a percentage, an id or phone ("03-1234"),
    // glued to a word ("50MM", "A4") unless that word is a currency mark.
    const bool in_date = std::any_of(dates.begin(), dates.end(), [&](const Date& d) {
      return first < d.end && d.begin < run_end;
    });
    const char after = run_end < s.size() ? s[run_end] : ' ';
    const char after2 = run_end + 1 < s.size() ? s[run_end + 1] : ' ';
    const char before = first > 0 ? s[first - 1] : ' ';
    const char before2 = first > 1 ? s[first - 2] : ' ';
    const auto mark_after_it = mark_after(s, run_end, lexicon);
    if (in_date || after == ':' || (before == ':' && is_digit(before2)) || after == '%' ||
        (after == ' ' && after2 == '%') || (before == '-' && is_digit(before2)) ||
        (after == '-' && is_digit(after2)) || (after == '/' && is_digit(after2)) ||
        (before == '/' && is_digit(before2))) {
      continue;
    }
    if (is_letter(before) && !mark && !a.has_cents) continue;  // "A4", "T1"; "t19.00" is a smudge
    if (is_letter(after) && !mark_after_it && !a.has_cents) continue;
    if (!a.has_cents && !whole && !mark && !mark_after_it) continue;
    a.cents = std::stoll(integer) * 100 + (a.has_cents ? std::stoll(groups.back().second) : 0);
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

bool abn_checksum_ok(std::string_view d) {
  static constexpr std::array<int, 11> kWeights{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
  if (d.size() != 11 || d[0] == '0') return false;
  int sum = 0;
  for (int i = 0; i < 11; ++i) sum += kWeights[i] * ((d[i] - '0') - (i == 0 ? 1 : 0));
  return sum % 89 == 0;
}

std::optional<std::string> parse_abn(std::string_view text) {
  // Digits in groups separated by single spaces, dots, dashes or ':' (OCR reads a space so).
  static const std::regex kGroups(R"(\d(?:[ .:\-]?\d){10})");
  const std::string s(text);
  for (std::sregex_iterator it(s.begin(), s.end(), kGroups), end; it != end; ++it) {
    const std::string d = digits_of(it->str());
    if (d.size() == 11 && abn_checksum_ok(d)) {
      return d.substr(0, 2) + " " + d.substr(2, 3) + " " + d.substr(5, 3) + " " + d.substr(8, 3);
    }
  }
  return std::nullopt;
}

std::optional<std::string> parse_bsb(std::string_view text) {
  static const std::regex kBsb(R"((^|[^\d])(\d{3})[ \-]?(\d{3})(?!\d))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kBsb)) return std::nullopt;
  return m[2].str() + " " + m[3].str();
}

std::optional<std::string> parse_account(std::string_view text) {
  static const std::regex kAccount(R"((^|[^\d])(\d(?:[ \-]?\d){5,9})(?![\d]))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kAccount)) return std::nullopt;
  return digits_of(m[2].str());
}

std::optional<std::string> parse_phone(std::string_view text) {
  static const std::regex kPhone(
      R"((\(0\d\)\s?\d{4}\s?\d{4}|\+61\s?\d\s?\d{4}\s?\d{4}|0\d\s\d{4}\s\d{4}|04\d{2}\s?\d{3}\s?\d{3}|1[38]00\s?\d{3}\s?\d{3}))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kPhone)) return std::nullopt;
  return clean_text(m[1].str());
}

std::optional<std::string> parse_email(std::string_view text) {
  static const std::regex kEmail(R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kEmail)) return std::nullopt;
  return lowercase(m.str());
}

std::optional<std::string> parse_website(std::string_view text) {
  static const std::regex kWeb(
      R"(((?:https?://)?www\.[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+|https?://[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)(?:/\S*)?)",
      std::regex::icase);
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kWeb)) return std::nullopt;
  return lowercase(m.str());
}

bool looks_like_address(std::string_view text) {
  static const std::regex kState(R"(\b(NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4}\b)");
  static const std::regex kStreet(
      R"(^\s*(?:(?:Unit|Suite|Level|Shop)\s+\d+\w?,?\s+)?\d+\w?(?:[/\-]\d+)?\s+[A-Za-z][A-Za-z' ]*\s(?:Street|St|Road|Rd|Avenue|Ave|Terrace|Tce|Mall|Lane|Ln|Drive|Dr|Place|Pl|Parade|Pde|Highway|Hwy|Boulevard|Blvd|Crescent|Cres|Way|Court|Ct|Close|Square|Esplanade)\b)",
      std::regex::icase);
  const std::string s(text);
  return std::regex_search(s, kState) || std::regex_search(s, kStreet);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (std::size_t i = 0; i < out.size();) {
    const auto c = static_cast<unsigned char>(out[i]);
    if (c < 0x80) {
      out[i] = static_cast<char>(std::tolower(c));
      ++i;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(out.data() + i),
                                    static_cast<utf8proc_ssize_t>(out.size() - i), &cp);
    if (n <= 0) {  // not UTF-8: the byte as it is
      ++i;
      continue;
    }
    utf8proc_uint8_t lower[4];
    const auto m = utf8proc_encode_char(utf8proc_tolower(cp), lower);
    if (m == n)
      std::copy(lower, lower + m, out.begin() + static_cast<long>(i));  // same length: offsets hold
    i += static_cast<std::size_t>(n);
  }
  return out;
}

std::string clean_text(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  const auto junk = [](char c) { return c == ':' || c == '-' || c == ' ' || c == '|' || c == ';'; };
  std::size_t b = 0, e = out.size();
  while (b < e && junk(out[b])) ++b;
  while (e > b && junk(out[e - 1])) --e;
  return out.substr(b, e - b);
}

}  // namespace docsift::ocr
