// Dates: the page's day/month order, and INVOICE_DATE by position. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <regex>
#include <set>

namespace docsift::ocr::detail {

std::optional<Finding> FieldFinder::date_by_position(const Labelled& labelled) const {
  if (found.count("INVOICE_DATE") || statement()) return std::nullopt;
  static const std::regex kTime(
      R"((^|[^\d])([01]?\d|2[0-3])\s?[:.]\s?[0-5]\d(\s?[:.]\s?[0-5]\d)?(?!\d))");
  std::optional<Date> best;
  std::size_t best_segment = 0;
  double best_score = 0;
  std::vector<std::pair<std::string, double>>
      scored;  // each date and its score: the winner's margin
  for (std::size_t i = 0; i < n; ++i) {
    if (std::any_of(labelled.other_dates.begin(), labelled.other_dates.end(),
                    [&](const auto& o) { return o.first == i || o.second == i; }))
      continue;
    for (const auto& d : find_dates(r[i].text, rules.lexicon, facts.order)) {
      const std::string rest = r[i].text.substr(0, d.begin) + " " + r[i].text.substr(d.end);
      double score = 10.0 - 8.0 * r[i].top / std::max(1, page.height);
      if (std::regex_search(rest, kTime)) score += 10;
      scored.emplace_back(format_date(d), score);
      if (!best || score > best_score) best = d, best_segment = i, best_score = score;
    }
  }
  if (!best) return std::nullopt;
  Finding out{"INVOICE_DATE", format_date(*best), best_segment, {}, "date_by_position"};
  note_contest(out.noted, out.value, best_score, scored);
  return out;
}

namespace {

// Whether `date`'s year is the year as printed in `text`: its last run of digits, four or two
// ("2017", "17"), not a misread undone (repaired_year: "2604" read as 2004).
bool year_as_printed(const std::string& text, const Date& date) {
  const std::string span = text.substr(date.begin, date.end - date.begin);
  std::size_t end = span.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(span[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(span[begin - 1]))) --begin;
  const std::string year = span.substr(begin, end - begin);
  const int printed = year.size() == 4 || year.size() == 2 ? std::stoi(year) : -1;
  return printed == date.year || (year.size() == 2 && 2000 + printed == date.year);
}

}  // namespace

// INVOICE_DATE whose year was not read as printed ("Date: 08/10/2604", repaired to 2004) where
// another line prints the same day and month with a year read as printed ("DD: 08/10/2017"): the
// clean printing is the date.
std::optional<Finding> FieldFinder::date_from_twin() const {
  const auto it = found.find("INVOICE_DATE");
  if (it == found.end() || !it->second.at) return std::nullopt;
  const std::size_t at = *it->second.at;
  const auto dates = find_dates(r[at].text, rules.lexicon, facts.order);
  const auto chosen = std::find_if(dates.begin(), dates.end(), [&](const Date& d) {
    return format_date(d) == it->second.value;
  });
  if (chosen == dates.end() || year_as_printed(r[at].text, *chosen)) return std::nullopt;
  for (std::size_t k = 0; k < n; ++k) {
    if (k == at) continue;
    for (const Date& d : find_dates(r[k].text, rules.lexicon, facts.order)) {
      if (d.day == chosen->day && d.month == chosen->month && d.year != chosen->year &&
          year_as_printed(r[k].text, d)) {
        return Finding{"INVOICE_DATE", format_date(d), k, {}, "date_from_twin"};
      }
    }
  }
  return std::nullopt;
}

std::vector<WordRun> FieldFinder::doubtful_dates() const {
  std::vector<WordRun> out;
  if (page.exact || found.count("INVOICE_DATE")) return out;
  // A date's shape: a separator twice between at least 4 digits in one word, short of an id's
  // length ("03/0/2018", "25/Fen/2017"); a phone number has one dash, a price one dot.
  const auto date_shaped = [](const std::string& word) {
    const std::size_t digits = digits_in(word);
    const bool twice =
        std::any_of(std::begin(kDateSeparators), std::end(kDateSeparators),
                    [&](char s) { return std::count(word.begin(), word.end(), s) == 2; });
    return twice && digits >= 4 && digits <= kMaxDateDigits && word.size() <= 14;
  };
  // First the words after a date's label that read as no date ("Date: a7/OMe01S 16.34", "Date:
  // 1° 4/2017", receipts 249 and 473 of the 427): Tesseract often mangles a date printed small or
  // faint past the date's shape. Up to kMaxLabelledDateWords of them, read as one run.
  for (std::size_t i = 0; i < n && out.size() < kMaxDateRereads; ++i) {
    if (r[i].lowered.size() != r[i].text.size()) continue;  // offsets of `lowered` are the text's
    for (const Hit& h : r[i].hits) {
      if (rules.fields[h.rule].field != "INVOICE_DATE") continue;
      // The value: the label's segment after it, else the next segment of the line where that has
      // no label of its own (a value printed apart from its label: "Date:      a7/OMe01S").
      const bool last_in_segment = h.value_end >= r[i].text.size();
      const bool next = i + 1 < n && r[i + 1].line == r[i].line && r[i + 1].hits.empty();
      std::string value = r[i].text.substr(h.end, h.value_end > h.end ? h.value_end - h.end : 0);
      if (last_in_segment && next) value += " " + r[i + 1].text;
      if (!find_dates(value, rules.lexicon, facts.order).empty()) continue;
      const int right = last_in_segment && next ? r[i + 1].right : r[i].right;
      const std::vector<Word>& words = page.lines[r[i].line].words;
      std::optional<std::size_t> first, last;
      std::size_t digits = 0;
      std::size_t at = 0;  // where the word starts in the segment's text (its words joined by ' ')
      for (std::size_t w = 0; w < words.size(); ++w) {
        if (words[w].box.left < r[i].left || words[w].box.right > right) continue;
        const bool beyond = words[w].box.left > r[i].right;  // in the next segment
        const std::size_t end = at + words[w].text.size();
        if (beyond || (at >= h.end && at < h.value_end)) {
          if (!first) first = w;
          if (w - *first < kMaxLabelledDateWords) last = w, digits += digits_in(words[w].text);
        }
        at = end + 1;
      }
      // A date has digits, however misread ("a7/OMe01S"); a label's word with none after it
      // ("DATANG LAGI" read as "data") is no date's.
      if (first && digits > 0) out.push_back({r[i].line, *first, *last, "INVOICE_DATE"});
      break;
    }
  }
  for (std::size_t l = 0; l < page.lines.size() && out.size() < kMaxDateRereads; ++l) {
    const std::vector<Word>& words = page.lines[l].words;
    for (std::size_t w = 0; w < words.size() && out.size() < kMaxDateRereads; ++w) {
      if (date_shaped(words[w].text)) out.push_back({l, w, w, "INVOICE_DATE"});
    }
  }
  return out;
}

}  // namespace docsift::ocr::detail
