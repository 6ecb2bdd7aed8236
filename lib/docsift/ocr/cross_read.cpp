#include "docsift/ocr/cross_read.h"

#include "docsift/ocr/known_names.h"
#include "docsift/text/utf8.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace docsift::ocr {

std::string unglued_time(const std::string& read) {
  // A date's year (4 or 2 digits) or day, then a time's hour with no space between: PP-OCR drops
  // the space that Tesseract keeps. The longer year first: "20185:41" is 2018 and 5:41.
  static const std::regex kGlued(
      R"((\b\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})|\b\d{4}[-/.]\d{1,2}[-/.]\d{2})(\d{1,2}:\d{2}))");
  return std::regex_replace(read, kGlued, "$1 $2");
}

bool readings_agree(const std::string& kind, const std::string& value, const std::string& read,
                    const Lexicon& lexicon) {
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
      for (const Date& d : find_dates(unglued_time(read), lexicon, order)) {
        if (format_date(d) == value) return true;
      }
    }
    return false;
  }
  const std::string key = name_key(value);
  // A row's description, in the reading of the row's lines: its quantity and figures beside it.
  if (kind == "list") return !key.empty() && name_key(read).find(key) != std::string::npos;
  // The box of a name may hold more than the rules kept of it (a registration number after it).
  return !key.empty() && name_key(read).starts_with(key);
}

namespace {

// A name's characters, as the two readings are compared: ASCII letters, digits and '&'.
bool name_character(unsigned char c) { return c < 0x80 && (std::isalnum(c) != 0 || c == '&'); }

// How many letters and digits of `value` run from byte `at` on in `direction` (-1 or 1), `at`'s own
// included: 0 where `at` is not one.
std::size_t word_run(const std::string& value, std::size_t at, int direction) {
  std::size_t n = 0;
  for (std::size_t i = at;
       i < value.size() && std::isalnum(static_cast<unsigned char>(value[i])) != 0;) {
    ++n;
    if (direction > 0)
      ++i;
    else if (i-- == 0)
      break;
  }
  return n;
}

// Whether the word of `value` at byte `at` holds a digit, or is of at most three letters with `at`
// its first or last ("SRD", "US", not the S of "GST").
bool numbered_word(const std::string& value, std::size_t at) {
  const std::size_t left = word_run(value, at, -1), right = word_run(value, at, 1);
  if (left == 0) return false;
  const std::size_t first = at + 1 - left, size = left + right - 1;
  const bool digit =
      std::any_of(value.begin() + static_cast<std::ptrdiff_t>(first),
                  value.begin() + static_cast<std::ptrdiff_t>(first + size),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return digit || (size <= 3 && (at == first || at + 1 == first + size));
}

// One step of the alignment of the first reading's name characters with the second's.
enum class Step { Same, Substituted, Inserted, Deleted };

// The cheapest edit path from `mine` to a prefix of `theirs` (the second reading may run on past
// the name), case aside; ties prefer the longer prefix. Steps in reading order, each with the
// index in `mine` it acts before or on and the index in `theirs` it takes (Deleted: none).
struct Aligned {
  Step step;
  std::size_t i, j;
};
std::vector<Aligned> align(const std::string& mine, const std::string& theirs) {
  const std::size_t n = mine.size(), m = theirs.size();
  const auto same = [&](std::size_t i, std::size_t j) {
    return std::toupper(static_cast<unsigned char>(mine[i])) ==
           std::toupper(static_cast<unsigned char>(theirs[j]));
  };
  std::vector<std::vector<std::size_t>> cost(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t j = 0; j <= m; ++j) cost[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cost[i][0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      cost[i][j] = std::min({cost[i - 1][j - 1] + (same(i - 1, j - 1) ? 0 : 1), cost[i][j - 1] + 1,
                             cost[i - 1][j] + 1});
    }
  }
  std::size_t j = 0;
  for (std::size_t k = 1; k <= m; ++k) {
    if (cost[n][k] <= cost[n][j]) j = k;
  }
  std::vector<Aligned> path;
  for (std::size_t i = n; i > 0 || j > 0;) {
    if (i > 0 && j > 0 && cost[i][j] == cost[i - 1][j - 1] + (same(i - 1, j - 1) ? 0 : 1)) {
      path.push_back({same(i - 1, j - 1) ? Step::Same : Step::Substituted, i - 1, j - 1});
      --i, --j;
    } else if (j > 0 && cost[i][j] == cost[i][j - 1] + 1) {
      path.push_back({Step::Inserted, i, j - 1});
      --j;
    } else {
      path.push_back({Step::Deleted, i - 1, 0});
      --i;
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

// Whether a sure character of the second reading (`theirs[a.j]`, substituted for `mine[a.i]` or
// put in before it) may be taken. Never a digit for a letter ("BILD" is not "BHD1"): OCR reads a
// name's letters as digits, seldom the other way round; the others keep Tesseract's reading, each
// letter settled alone ("WR. D.I.Y. (M) SON BHD": a sure M, an unsure D). With `digits` (an
// address) a digit is taken in its words of digits and short ones ("SRD" for "3RD", "US/BM" for
// "U5/BM"), not in a word of letters ("DAMANSARA" is not "DA1ANSARA"); nor an O for a zero between
// two digits (a postcode's "7000" is not "7o00"; "PJU 14/3" may be "1A/3").
bool may_take(const Aligned& a, const std::string& mine, const std::string& theirs,
              const std::string& value, const std::vector<std::size_t>& where, bool digits) {
  const auto b = static_cast<unsigned char>(theirs[a.j]);
  const auto digit = [&](std::size_t i) {
    return std::isdigit(static_cast<unsigned char>(mine[i])) != 0;
  };
  if (std::isdigit(b) != 0 &&
      (a.step == Step::Inserted || std::isalpha(static_cast<unsigned char>(mine[a.i])) != 0) &&
      !(digits && a.i < mine.size() && numbered_word(value, where[a.i])))
    return false;
  return !(digits && a.step == Step::Substituted && (b == 'o' || b == 'O') && mine[a.i] == '0' &&
           a.i > 0 && a.i + 1 < mine.size() && digit(a.i - 1) && digit(a.i + 1));
}

// The second reading's name characters with their probabilities, one per code point of `read`
// (a full-width bracket is one character, not a name's), and whether a space comes before each
// (after another name character).
struct NameRead {
  std::string theirs;
  std::vector<float> p;
  std::vector<bool> spaced;
};
std::optional<NameRead> name_read(const std::string& read,
                                  const std::vector<float>& probabilities) {
  NameRead out;
  auto& [theirs, p, spaced] = out;
  bool space = false;
  std::size_t at = 0;
  for (std::size_t i = 0; i < read.size(); ++at) {
    const char32_t c = text::next_code_point(read, i);
    if (at >= probabilities.size()) return std::nullopt;
    const bool named = c < 0x80 && name_character(static_cast<unsigned char>(c));
    if (named)
      spaced.push_back(space && !theirs.empty()), theirs += static_cast<char>(c),
          p.push_back(probabilities[at]);
    space = c == U' ' || (space && !named);
  }
  if (at != probabilities.size()) return std::nullopt;  // not one per character: not trusted
  return out;
}

}  // namespace

std::optional<std::string> substituted_name(const std::string& value, const std::string& read,
                                            const std::vector<float>& probabilities, double sure,
                                            bool digits) {
  const std::optional<NameRead> second = name_read(read, probabilities);
  if (!second) return std::nullopt;
  const auto& [theirs, p, spaced] = *second;
  std::string mine;
  std::vector<std::size_t> where;  // the byte of `value` each of `mine` is
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (name_character(static_cast<unsigned char>(value[i]))) mine += value[i], where.push_back(i);
  }
  if (mine.empty()) return std::nullopt;
  // What changes at each of `mine`: its replacement, and what is put in before it (index
  // mine.size(): after the last, which the name's own end keeps out).
  std::vector<std::optional<char>> replaced(mine.size());
  std::vector<std::string> before(mine.size() + 1), after(mine.size());
  std::size_t edits = 0, taken = 0;
  std::optional<Aligned> last;  // the previous step that read a character of both
  const std::vector<Aligned> path = align(mine, theirs);
  for (std::size_t step = 0; step < path.size(); ++step) {
    const Aligned& a = path[step];
    // An initial Tesseract read glued to the letter beside it that the second reads apart ("CW
    // KHOO" read "C W KHOO"): the space is put in. Only an initial: PP-OCR splits words too
    // ("S&Y STAT IONERY"). Not in an address, which has no initials ("301 Queen Street" read
    // "301 Q ueen").
    const bool both = a.step == Step::Same || a.step == Step::Substituted;
    if (!digits && both && last && last->i + 1 == a.i && last->j + 1 == a.j && spaced[a.j] &&
        where[a.i] == where[last->i] + 1 &&
        std::min(word_run(value, where[last->i], -1), word_run(value, where[a.i], 1)) == 1) {
      before[a.i] += ' ';
      ++taken;
    }
    last = both ? std::optional<Aligned>(a) : std::nullopt;
    if (a.step == Step::Same) continue;
    ++edits;
    // Tesseract reads letters that are not there less often than the recognizer drops one
    // ("LIAN" read "LAN"): a letter is never taken out.
    if (a.step == Step::Deleted) continue;
    if (p[a.j] < sure || !may_take(a, mine, theirs, value, where, digits)) continue;
    if (a.step == Step::Substituted) replaced[a.i] = theirs[a.j];
    // One letter the second reads at the end of a word ("JIAWE" read "JIAWEI JIAWEI") goes after
    // that word's last letter, not before the next word's first; more (a word Tesseract missed)
    // stay before the next.
    else if (a.i > 0 && a.i < mine.size() && !spaced[a.j] && where[a.i] != where[a.i - 1] + 1 &&
             path[step - 1].step != Step::Inserted && path[step + 1].step != Step::Inserted)
      after[a.i - 1] += theirs[a.j];
    else
      before[a.i] += theirs[a.j];
    ++taken;
  }
  const std::size_t allowed = std::max<std::size_t>(1, mine.size() / kNameEditsPer);
  // The second reading may run on past the name, not start elsewhere: one letter before its first
  // ("'SH" read "TSH"), not a word ("Visit www.…" read where the rules kept "www.…").
  if (taken == 0 || edits > allowed || !before.back().empty() || before.front().size() > 1)
    return std::nullopt;
  std::string out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (k < where.size() && where[k] == i) {
      out += before[k];
      out += replaced[k].value_or(value[i]);
      out += after[k];
      ++k;
    } else {
      out += value[i];
    }
  }
  return out;
}

double reading_gap(const std::string& value, const std::string& read) {
  const std::string a = name_key(value);
  if (a.empty()) return 0;
  // The cheapest path to a prefix of the reading, as substituted_name aligns the two: its steps
  // that are not the same character are the edits.
  const std::vector<Aligned> path = align(a, name_key(read));
  const auto edits = std::count_if(path.begin(), path.end(),
                                   [](const Aligned& s) { return s.step != Step::Same; });
  return static_cast<double>(edits) / static_cast<double>(a.size());
}

std::optional<std::string> second_value(const std::string& kind, const std::string& read,
                                        const Lexicon& lexicon, DateOrder order) {
  if (kind == "amount") {
    const std::vector<Amount> amounts = find_amounts(read, lexicon);
    if (amounts.size() != 1 || !amounts[0].has_cents) return std::nullopt;
    return format_amount(amounts[0].cents, amounts[0].currency);
  }
  if (kind == "date") {
    const std::vector<Date> dates = find_dates(unglued_time(read), lexicon, order);
    if (dates.size() != 1) return std::nullopt;
    return format_date(dates[0]);
  }
  return std::nullopt;
}

}  // namespace docsift::ocr

namespace docsift::ocr {

std::optional<std::string> settle(const std::string& kind, const std::string& value,
                                  const Evidence& evidence, const std::vector<long long>& sums,
                                  const LineText& second, const Lexicon& lexicon, DateOrder order) {
  if (kind == "amount") {
    const auto summed_up = [&](std::optional<long long> v) {
      return v && std::find(sums.begin(), sums.end(), *v) != sums.end();
    };
    if (evidence.sums_agree || summed_up(amount_cents(value))) return std::nullopt;
    const std::optional<std::string> read = second_value(kind, second.text, lexicon, order);
    const std::optional<long long> cents = read ? amount_cents(*read) : std::nullopt;
    if (!cents) return std::nullopt;
    // A second reading that the page's printed sums make, where they do not make the first's:
    // taken when less sure, or over a first read surely (a sure misread of a faint digit).
    const bool summed = summed_up(cents);
    if (summed ? second.mean < kAmountSummedSure
               : evidence.word_min >= kAmountDoubt || second.mean < kAmountSure)
      return std::nullopt;
    const std::vector<Amount> mine = find_amounts(value, lexicon);
    return format_amount(*cents, mine.empty() ? std::string() : mine.front().currency);
  }
  if (kind == "date") {
    if (evidence.word_min >= kDateDoubt || second.mean < kDateSure) return std::nullopt;
    return second_value(kind, second.text, lexicon, order);
  }
  if (name_kind(kind))
    return substituted_name(value, second.text, second.probabilities, kLetterTaken,
                            kind == "address");
  return std::nullopt;
}

}  // namespace docsift::ocr
