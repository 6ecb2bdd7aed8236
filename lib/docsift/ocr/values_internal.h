// The value parsers' shared helpers (ocr/ only, not part of values.h): character classes, OCR's
// look-alike digits and the misread-digit table that the date and amount repairs both walk.
// digits_of and ocr_digits are defined in values.cpp; values_dates.cpp and values_amounts.cpp use
// them all.
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace docsift::ocr::detail {

inline bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
// ASCII letters and every byte of a multi-byte UTF-8 character (month names such as "März").
inline bool is_letter(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
}

// The digits of `s`, in order, nothing else.
std::string digits_of(std::string_view s);

// OCR reads a digit as a look-alike: "2O18", "1O.00", "l2/03/2018", "|7-06-2018". Within a run
// of non-spaces that holds two digits or more and no other letters, O and o become 0, and l, I
// and a bar before a digit become 1 (byte for byte, so positions hold).
std::string ocr_digits(std::string_view text);

// The digits OCR reads in place of another on receipts (bench/ocr/README.md, "Dates"): a 0 with a
// smudge or a broken stroke as 6, 8, 9, 2 or 4, a 1 with a serif as 7 or 4. Tried one digit at a
// time, and only where a date as read cannot be one; a repair counts only when it is the one way.
inline constexpr std::array<std::pair<char, char>, 7> kDigitMisreads{
    {{'6', '0'}, {'8', '0'}, {'9', '0'}, {'2', '0'}, {'4', '0'}, {'7', '1'}, {'4', '1'}}};

// Every reading of `digits` with one misread digit of `table` undone: `f(place, fixed)` for each
// place whose digit is a read one of the table, once per pair. The date and amount repairs
// (repaired_day_month, misread_amounts) both walk these.
template <std::size_t N, class F>
void each_misread(std::string_view digits, const std::array<std::pair<char, char>, N>& table,
                  F&& f) {
  for (std::size_t k = 0; k < digits.size(); ++k) {
    for (const auto& [read, meant] : table) {
      if (digits[k] != read) continue;
      std::string fixed(digits);
      fixed[k] = meant;
      f(k, fixed);
    }
  }
}

}  // namespace docsift::ocr::detail
