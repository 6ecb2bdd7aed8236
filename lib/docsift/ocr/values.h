// Values as documents print them, checked and written in the ground truth's forms. Each parser
// looks for its value anywhere in `text` (OCR text around a label, or a PDF's text layer) and
// returns nothing unless a value passes its check: the checks are what tell a real value from OCR
// noise. What is language data (month names, currency marks) comes in a Lexicon, read from
// configs/fields/ocr-rules.yaml, so that a new language is a line of YAML, not code.
#pragma once

#include <array>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docsift::ocr {

struct Lexicon {
  // Month names and abbreviations in every language the rules cover, case-folded: months[0] for
  // January ("jan", "january", "januar", "janvier", "enero", "gennaio", "januari", ...).
  std::array<std::vector<std::string>, 12> months;
  // How an amount's currency is written → the marks printed for it, case-folded
  // ({"RM", {"rm", "myr"}}, {"€", {"€", "eur"}}).
  std::vector<std::pair<std::string, std::vector<std::string>>> currencies;
  // The rules' home.regions as a state and its postcode print them ("VIC 3000"): a line with one
  // is an address (looks_like_address); none when the rules name no home.
  std::optional<std::regex> state_postcode;
  // The same on a lowered line, stops and commas allowed before the postcode ("nsw, 2000"): a page
  // that shows itself Australian (page_checks.h: absence_of's `home`).
  std::optional<std::regex> home_postcode;
};

// Numeric dates read day first (03/04/2025 is 3 April) or month first (April 3).
enum class DateOrder { Dmy, Mdy };

// An Australian Business Number: 11 digits (spaces, dots or dashes between groups) whose weighted
// sum, after subtracting 1 from the first digit, is divisible by 89 (docsift/abn.h). As
// "51 824 753 556".
std::optional<std::string> parse_abn(std::string_view text);

// A calendar date found in text, with where it was.
struct Date {
  int day = 0, month = 0, year = 0;
  std::size_t begin = 0, end = 0;  // byte range in the text
  bool numeric = false;            // 03/04/2025 (the order decided it), not 3 April 2025 or ISO
  bool day_first_only = false;     // numeric and readable only day first (13/04/2025)
  bool month_first_only = false;   // numeric and readable only month first (04/13/2025)
};
// Every date in `text`, in order of position, in the printed forms: 03/04/2025, 3/4/25,
// 03-04-2025, 03.04.2025, 2025-04-03, 2025/04/03, 3 April 2025, 3 Apr 2025, 06 APR 2018,
// 20/JAN/2017, 24-MAR-18, April 3, 2025, 3rd April 2025, 3. März 2025, with month names in any
// language of the lexicon; before a time, 25032018 and 20180428 ("25032018 13:11:54"). Two-digit
// years are 20YY. Dates that do not exist (31/02) are left out.
std::vector<Date> find_dates(std::string_view text, const Lexicon& lexicon,
                             DateOrder order = DateOrder::Dmy);
// As DD/MM/YYYY.
std::string format_date(const Date& date);
// A value format_date wrote, read back: two digits of day, two of month, four of year, a day and a
// month of 1 or more; none where `text` is not one.
std::optional<Date> formatted_date(std::string_view text);
// The first date in `text`, as DD/MM/YYYY.
std::optional<std::string> parse_date(std::string_view text, const Lexicon& lexicon,
                                      DateOrder order = DateOrder::Dmy);
// Two dates, as "DD/MM/YYYY to DD/MM/YYYY" (a statement period: "01/07/2025 - 28/07/2025").
std::optional<std::string> parse_period(std::string_view text, const Lexicon& lexicon,
                                        DateOrder order = DateOrder::Dmy);

// A money amount found in text. Decimal comma or dot; thousands grouped by comma, dot, apostrophe
// or (after a currency mark) space; a currency mark before or after ("RM 9.90", "56,02 €",
// "Rs 1939", "EUR 1.234,56"). OCR's space after the decimal mark ("11. 80") is read through.
struct Amount {
  long long cents = 0;
  bool has_cents = false;  // printed with two decimals; a whole amount counts only when vouched for
  std::string currency;    // as the lexicon writes it, "" when no mark was printed with it
  std::size_t begin = 0, end = 0;  // byte range in the text, marks included
};
// Every amount in `text`, in order. Whole numbers are included only with `whole` (a label vouches
// for them) or a currency mark; numbers that are part of a date, a time, a percentage or a longer
// run of digits and dashes (an id or a phone number) are not amounts.
std::vector<Amount> find_amounts(std::string_view text, const Lexicon& lexicon, bool whole = false);
// "$1,234.56", "€56.02", "RM 9.90", "1,234.56" (no currency): thousands by comma, cents by a dot.
std::string format_amount(long long cents, std::string_view currency);
// The amounts one OCR digit misread away from `cents` as read (a 6 for a 0, a 3 for an 8: the
// tables in values_internal.h and values_amounts.cpp), without a leading zero; for checking a total
// against the page's sums.
std::vector<long long> misread_amounts(long long cents);
// Whether `tax` is within a cent of a whole percentage from `lowest` to `highest` of `net` (all
// positive, in cents), as a tax levied at one rate is ("GST 1,472.90" on 14,729.00: 10 %).
bool whole_percentage(long long net, long long tax, long long lowest, long long highest);
// The last amount with cents in `text` (or a whole one when `whole`), formatted.
std::optional<std::string> parse_amount(std::string_view text, const Lexicon& lexicon,
                                        bool whole = false);
// Whether the amount at text[begin, end) is printed as a debit: a minus or an opening bracket
// before it (a currency mark between), a minus or DR after it: "-$45.00", "$-45.00", "(45.00)",
// "45.00-", "- 45.00", "1,234.56 DR".
bool negative_at(std::string_view text, std::size_t begin, std::size_t end);
// Whether a figure's cell is printed as a debit: negative_at around its digits.
bool negative_printed(std::string_view cell);
// The value in cents of an amount as format_amount writes it.
std::optional<long long> amount_cents(std::string_view formatted);

// A BSB: 3 + 3 digits ("063 140", "063-140", "063140"). As "063 140".
std::optional<std::string> parse_bsb(std::string_view text);

// A bank account number: 6 to 10 digits, possibly grouped by spaces or dashes. Digits only.
std::optional<std::string> parse_account(std::string_view text);

// An Australian phone number: (02) 1889 4771, 02 1889 4771, +61 2 1889 4771, 0412 345 678,
// 1300 123 456. As printed, spaces normalised.
std::optional<std::string> parse_phone(std::string_view text);

// An e-mail address, lower-cased; one alone on its line is read through the spaces OCR puts after
// its stops ("liam. oconnor@example.com. au").
std::optional<std::string> parse_email(std::string_view text);
// www.example.com.au or http(s)://…, as printed.
std::optional<std::string> parse_website(std::string_view text);

// Whether a line reads as a street address: a home state and postcode ("VIC 3000", the lexicon's
// state_postcode), or a number then a street word ("88 Collins Street").
bool looks_like_address(std::string_view text, const Lexicon& lexicon);

// Letters lowered by Unicode's simple case mapping where that keeps the byte length ("ODBĚRATEL"
// → "odběratel"), so that offsets found in the lowered text hold in the original; other bytes,
// and invalid UTF-8, are kept. Labels and headings are matched so.
std::string lowercase(std::string_view s);
// Case-folded for every script utf8proc knows ("MÄRZ" → "märz"); invalid UTF-8 is kept as bytes.
// `strip_marks`: the accents dropped too ("reçu" → "recu"), as OCR often reads them.
std::string casefold(std::string_view s, bool strip_marks = false);

// `text` with runs of whitespace as one space, trimmed, and leading/trailing ':' '-' removed.
std::string clean_text(std::string_view text);
// An address as clean_text makes it, with the space OCR read as a stop between a street's number
// and its name put back ("301.Queen Street": a dot between a digit and a capitalised word).
std::string clean_address(std::string_view text);
// An address whose home region before its four-digit postcode OCR misread by letters it confuses
// ("Brisbane OLD 4000", "Sydney N5W 2000"), with the region put back; none where it reads one, or
// the word (two or three capitals and digits) is no region, or could be more than one; a region
// glued to its postcode ("Adelaide SA5000") gets its space.
// `regions` as home.regions has them (lower case).
std::optional<std::string> home_region_repaired(std::string_view address,
                                                const std::vector<std::string>& regions);
// The letters of a lowered line alone, their marks kept: "tax invoice" and "taxinvoice" are both
// "taxinvoice", "Relevé ‘ de" is "relevéde" (a quote, a dash or a stop of any script is no letter).
std::string letters_only(std::string_view lowered);
// Whether a line's letters (letters_only) are a heading's read glued or misread: "TAXINVOICE",
// "fax Tinvoice", "RECElPT". They hold the heading's (at least 5), which are most of them, or are
// within one edit of a heading of 7 letters or more. Or a heading broken over two lines: the line
// begins it and with `next` (the next line's letters; empty for none) it is the heading ("Relevé
// de" over "compte").
bool garbled_heading(const std::string& line, const std::string& next, const std::string& word);
// `text` with every `from` (not empty) made `to`, built anew: in place, GCC 12 warns of an overlap
// it imagines in std::string::replace.
std::string replace_all(std::string_view text, std::string_view from, std::string_view to);

}  // namespace docsift::ocr
