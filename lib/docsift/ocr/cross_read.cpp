#include "docsift/ocr/cross_read.h"

#include "docsift/ocr/known_names.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace docsift::ocr {

bool readings_agree(const std::string& kind, const std::string& value, const std::string& read, const Lexicon& lexicon) {
  if (kind == "amount") {
    const std::optional<long long> cents = amount_cents(value);
    if (!cents) return false;
    for (const Amount& a : find_amounts(read, lexicon)) {
      if (a.cents == *cents) return true;
    }
    return false;
  }
  if (kind == "date") {
    for (const DateOrder order : {DateOrder::Dmy, DateOrder::Mdy}) {
      for (const Date& d : find_dates(read, lexicon, order)) {
        if (format_date(d) == value) return true;
      }
    }
    return false;
  }
  // The box of a name may hold more than the rules kept of it (a registration number after it).
  const std::string key = name_key(value);
  return !key.empty() && name_key(read).starts_with(key);
}

std::optional<std::string> substituted_name(const std::string& value, const std::string& read,
                                            const std::vector<float>& probabilities, double sure) {
  const auto ascii = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  };
  // ASCII only: then a character is a byte, and `probabilities` index the read's bytes.
  if (!ascii(value) || !ascii(read) || probabilities.size() != read.size()) return std::nullopt;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::size_t> mine, theirs;  // positions of the letters and digits in each
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (alnum(value[i])) mine.push_back(i);
  }
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (alnum(read[i])) theirs.push_back(i);
  }
  if (mine.empty() || theirs.size() < mine.size()) return std::nullopt;
  std::string out = value;
  std::size_t edits = 0;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const char a = value[mine[k]], b = read[theirs[k]];
    if (std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b))) continue;
    // A sure letter only, and never a digit for a letter ("BILD" is not "BHD1"): OCR reads a
    // name's letters as digits, seldom the other way round.
    if (probabilities[theirs[k]] < sure || (std::isdigit(static_cast<unsigned char>(b)) && std::isalpha(static_cast<unsigned char>(a)))) {
      return std::nullopt;
    }
    out[mine[k]] = b;
    ++edits;
  }
  const std::size_t allowed = std::max<std::size_t>(1, mine.size() / kNameEditsPer);
  if (edits == 0 || edits > allowed) return std::nullopt;
  return out;
}

std::optional<std::string> second_value(const std::string& kind, const std::string& read, const Lexicon& lexicon,
                                        DateOrder order) {
  if (kind == "amount") {
    const std::vector<Amount> amounts = find_amounts(read, lexicon);
    if (amounts.size() != 1 || !amounts[0].has_cents) return std::nullopt;
    return format_amount(amounts[0].cents, amounts[0].currency);
  }
  if (kind == "date") {
    const std::vector<Date> dates = find_dates(read, lexicon, order);
    if (dates.size() != 1) return std::nullopt;
    return format_date(dates[0]);
  }
  return std::nullopt;
}

}  // namespace docsift::ocr

namespace docsift::ocr {

std::optional<std::string> settle(const std::string& kind, const std::string& value, const Evidence& evidence,
                                  const LineText& second, const Lexicon& lexicon, DateOrder order) {
  if (kind == "amount") {
    if (evidence.sums_agree || evidence.word_min >= kAmountDoubt || second.mean < kAmountSure) return std::nullopt;
    const std::optional<std::string> read = second_value(kind, second.text, lexicon, order);
    const std::optional<long long> cents = read ? amount_cents(*read) : std::nullopt;
    if (!cents) return std::nullopt;
    const std::vector<Amount> mine = find_amounts(value, lexicon);
    return format_amount(*cents, mine.empty() ? std::string() : mine.front().currency);
  }
  if (kind == "date") {
    if (evidence.word_min >= kDateDoubt || second.mean < kDateSure) return std::nullopt;
    return second_value(kind, second.text, lexicon, order);
  }
  if (kind == "text") return substituted_name(value, second.text, second.probabilities, kLetterSure);
  return std::nullopt;
}

}  // namespace docsift::ocr
