// Dates as documents print them (find_dates, values.h): the text's tokens, the three patterns tried
// at each token, and the repairs of OCR's misread digits in a day, a month or a year.
#include "docsift/ocr/values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/edit_distance.h"
#include "docsift/ocr/values_internal.h"

namespace docsift::ocr {
namespace {

using detail::each_misread;
using detail::is_digit;
using detail::is_letter;
using detail::kDigitMisreads;
using detail::ocr_digits;

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

// A three-letter month between a day and a year with one separator ("25/Fen/2017", "14/fMay/2017"):
// the one three-letter name one letter away (one replaced, or one stray letter read beside it), or
// 0 when none or several are.
int fuzzy_month_abbreviation(std::string_view word, const Lexicon& lexicon) {
  if (word.size() != 3 && word.size() != 4) return 0;
  const std::string folded = casefold(word);
  int found = 0, count = 0;
  for (int m = 0; m < 12; ++m) {
    for (const auto& name : lexicon.months[static_cast<std::size_t>(m)]) {
      // One edit: a letter replaced (same length) or one more read.
      if (name.size() == 3 && edit_distance(folded, name, 1) == 1 && found != m + 1)
        found = m + 1, ++count;
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
    const auto letters = std::count_if(run.begin(), run.end(), [](char c) {
      return std::string_view("OoUIl|").find(c) != std::string_view::npos;
    });
    if (letters > 0 && letters <= 2 && digits >= 4 && std::regex_match(run, kShape)) {
      std::replace(out.begin() + static_cast<long>(i), out.begin() + static_cast<long>(j), 'U',
                   '0');
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
std::optional<std::pair<int, int>> repaired_day_month(std::string_view a, std::string_view b,
                                                      int y) {
  // Only a number no day or month can be ("63", "29" as a month): a date the calendar lacks
  // ("31/04/2025") was printed so, not misread.
  const int day = number(a), month = number(b);
  if (day >= 1 && day <= 31 && month >= 1 && month <= 12) return std::nullopt;
  std::optional<std::pair<int, int>> found;
  int count = 0;
  for (int which = 0; which < 2; ++which) {
    each_misread(which == 0 ? a : b, kDigitMisreads, [&](std::size_t, const std::string& fixed) {
      const int d = which == 0 ? number(fixed) : number(a),
                m = which == 1 ? number(fixed) : number(b);
      if (valid_day(d, m, y) && (!found || *found != std::pair{d, m}))
        found = std::pair{d, m}, ++count;
    });
  }
  return count == 1 ? found : std::nullopt;
}

bool is_mark(const Token& t, std::string_view marks) {
  return t.kind == Token::Mark && t.text.size() == 1 &&
         marks.find(t.text[0]) != std::string_view::npos;
}

// The date patterns over one text's tokens. Each, tried at token i, returns the last token of what
// it read there (the scan goes on after it), or nothing when the next pattern is to be tried; the
// dates it reads go to `out`.
struct DateScan {
  const std::vector<Token>& t;
  const Lexicon& lexicon;
  DateOrder order;
  std::vector<Date> out;

  bool num(std::size_t i, std::size_t lo, std::size_t hi) const;
  bool clear_before(std::size_t i) const;
  bool clear_after(std::size_t i) const;
  bool add(int d, int m, int y, std::size_t first, std::size_t last, bool numeric);

  std::optional<std::size_t> numeric_date(std::size_t i);
  std::optional<std::size_t> compact_date(std::size_t i);
  std::optional<std::size_t> numeric_day_month(std::size_t i, int y);
  std::optional<std::size_t> day_then_month_name(std::size_t i);
  std::optional<std::size_t> month_name_then_day(std::size_t i);
};

bool DateScan::num(std::size_t i, std::size_t lo, std::size_t hi) const {
  return i < t.size() && t[i].kind == Token::Num && t[i].text.size() >= lo &&
         t[i].text.size() <= hi;
}

// A number glued to the pattern's ends ("1.2.3.4", "12:30") makes it something else.
bool DateScan::clear_before(std::size_t i) const {
  return i < 2 || !(is_mark(t[i - 1], "/.-:") && t[i - 2].kind == Token::Num &&
                    t[i - 2].end == t[i - 1].begin && t[i - 1].end == t[i].begin);
}

bool DateScan::clear_after(std::size_t i) const {  // i: the token after the pattern
  return i + 1 >= t.size() || !(is_mark(t[i], "/.-:") && t[i + 1].kind == Token::Num &&
                                t[i - 1].end == t[i].begin && t[i].end == t[i + 1].begin);
}

bool DateScan::add(int d, int m, int y, std::size_t first, std::size_t last, bool numeric) {
  if (!valid_day(d, m, y)) return false;
  out.push_back({d, m, y, t[first].begin, t[last].end, numeric, false, false});
  return true;
}

// 03/04/2025, 3-4-25, 03.04.2025 (one separator throughout); 2025-04-03.
std::optional<std::size_t> DateScan::numeric_date(std::size_t i) {
  if (!(num(i, 1, 4) && i + 4 < t.size() && is_mark(t[i + 1], "/.-") &&
        t[i + 3].text == t[i + 1].text && num(i + 2, 1, 2) && clear_after(i + 5))) {
    return std::nullopt;
  }
  if (num(i, 4, 4) && num(i + 4, 1, 2)) {
    // Year first: a date or nothing, no other pattern here.
    const bool added =
        add(number(t[i + 4].text), number(t[i + 2].text), number(t[i].text), i, i + 4, false);
    return added ? i + 4 : i;
  }
  const auto y = year_of(t[i + 4]);
  if (!num(i, 1, 2) || !y) return std::nullopt;
  return numeric_day_month(i, *y);
}

// A till's date printed without separators before its time: "25032018 13:11:54" (day first),
// "20180428 19:12" (year first). Only before a time: alone, eight digits are as likely an id. Year
// first where the first four digits make a year that makes a date, else day, month, year.
std::optional<std::size_t> DateScan::compact_date(std::size_t i) {
  const bool timed = num(i, 8, 8) && num(i + 1, 1, 2) && t[i].end < t[i + 1].begin &&
                     i + 3 < t.size() && is_mark(t[i + 2], ":") && num(i + 3, 2, 2);
  if (!timed) return std::nullopt;
  const std::string_view d = t[i].text;
  const int head = number(d.substr(0, 4));
  if (head >= 1990 && head <= latest_year() &&
      add(number(d.substr(6, 2)), number(d.substr(4, 2)), head, i, i, false))
    return i;
  const int tail = number(d.substr(4, 4));
  if (tail >= 1990 && tail <= latest_year() &&
      add(number(d.substr(0, 2)), number(d.substr(2, 2)), tail, i, i, false))
    return i;
  return std::nullopt;
}

// Day and month of a numeric date in the year `y`: read in `order` where both readings make a date,
// in the one that does where only one does, repaired (repaired_day_month) where neither does.
std::optional<std::size_t> DateScan::numeric_day_month(std::size_t i, int y) {
  const int a = number(t[i].text), b = number(t[i + 2].text);
  const bool dmy = valid_day(a, b, y), mdy = valid_day(b, a, y);
  if (!dmy && !mdy) {
    if (const auto fixed = repaired_day_month(t[i].text, t[i + 2].text, y)) {
      add(fixed->first, fixed->second, y, i, i + 4, true);
      return i + 4;
    }
    return std::nullopt;
  }
  const bool day_first = order == DateOrder::Dmy ? dmy : !mdy;
  add(day_first ? a : b, day_first ? b : a, y, i, i + 4, true);
  out.back().day_first_only = dmy && !mdy;
  out.back().month_first_only = mdy && !dmy;
  return i + 4;
}

// 3 April 2025, 06 APR 2018, 20/JAN/2017, 24-MAR-18, 3rd April 2025, 3. März 2025.
std::optional<std::size_t> DateScan::day_then_month_name(std::size_t i) {
  if (!num(i, 1, 2)) return std::nullopt;
  std::size_t k = i + 1;
  if (k < t.size() && t[k].kind == Token::Word &&
      (t[k].text == "st" || t[k].text == "nd" || t[k].text == "rd" || t[k].text == "th")) {
    ++k;
  }
  while (k < t.size() && is_mark(t[k], "/-.,")) ++k;
  int m = k < t.size() && t[k].kind == Token::Word ? month_of(t[k].text, lexicon) : 0;
  // "25/Fen/2017": one separator on each side, the same, and the year right after.
  if (m == 0 && k == i + 2 && k + 2 < t.size() && t[k].kind == Token::Word &&
      is_mark(t[i + 1], "/-") && t[k + 1].text == t[i + 1].text && year_of(t[k + 2])) {
    m = fuzzy_month_abbreviation(t[k].text, lexicon);
  }
  if (m <= 0 || k - i > 3) return std::nullopt;
  std::size_t j = k + 1;
  while (j < t.size() && is_mark(t[j], "/-.,") && j - k <= 2) ++j;
  const auto y = j < t.size() ? year_of(t[j]) : std::nullopt;
  // "2 May 10:30" is a time, not the year 2010.
  const bool time = j + 1 < t.size() && is_mark(t[j + 1], ":");
  if (y && !time && add(number(t[i].text), m, *y, i, j, false)) return j;
  return std::nullopt;
}

// April 3, 2025; Apr. 3rd 2025.
std::optional<std::size_t> DateScan::month_name_then_day(std::size_t i) {
  if (t[i].kind != Token::Word) return std::nullopt;
  const int m = month_of(t[i].text, lexicon);
  if (m <= 0) return std::nullopt;
  std::size_t k = i + 1;
  if (k < t.size() && is_mark(t[k], ".")) ++k;
  if (!num(k, 1, 2)) return std::nullopt;
  std::size_t j = k + 1;
  if (j < t.size() && t[j].kind == Token::Word && t[j].text.size() == 2) ++j;
  if (j < t.size() && is_mark(t[j], ",")) ++j;
  if (num(j, 4, 4) && add(number(t[k].text), m, number(t[j].text), i, j, false)) return j;
  return std::nullopt;
}

}  // namespace

std::vector<Date> find_dates(std::string_view text, const Lexicon& lexicon, DateOrder order) {
  const std::string digits = ocr_digits(date_lookalikes(text));
  const std::vector<Token> tokens = tokens_of(digits);
  DateScan scan{tokens, lexicon, order, {}};
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!scan.clear_before(i)) continue;
    std::optional<std::size_t> last = scan.numeric_date(i);
    if (!last) last = scan.compact_date(i);
    if (!last) last = scan.day_then_month_name(i);
    if (!last) last = scan.month_name_then_day(i);
    if (last) i = *last;
  }
  return std::move(scan.out);
}

std::string format_date(const Date& date) {
  char out[32];
  std::snprintf(out, sizeof out, "%02d/%02d/%04d", date.day, date.month, date.year);
  return out;
}

std::optional<Date> formatted_date(std::string_view text) {
  if (text.size() != 10 || text[2] != '/' || text[5] != '/') return std::nullopt;
  const auto number = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return -1;
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  Date out;
  out.day = number(0, 2), out.month = number(3, 2), out.year = number(6, 4);
  if (out.day < 1 || out.month < 1 || out.year < 0) return std::nullopt;
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

}  // namespace docsift::ocr
