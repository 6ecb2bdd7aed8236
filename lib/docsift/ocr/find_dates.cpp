// Dates: the page's day/month order, and INVOICE_DATE by position. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <regex>
#include <set>

namespace docsift::ocr::detail {

void FieldFinder::decide_date_order(DateOrderRule date_order) {
  order = date_order == DateOrderRule::Mdy ? DateOrder::Mdy : DateOrder::Dmy;
  if (date_order == DateOrderRule::Auto) {
    int day_first = 0, month_first = 0;
    for (const auto& seg : r) {
      for (const auto& d : find_dates(seg.text, rules.lexicon)) {
        day_first += d.day_first_only ? 1 : 0;
        month_first += d.month_first_only ? 1 : 0;
      }
    }
    if (month_first > day_first) order = DateOrder::Mdy;
  }
}

void FieldFinder::date_by_position(nlohmann::json& checks) {
  if (!found.count("INVOICE_DATE") && !statement) {
    static const std::regex kTime(
        R"((^|[^\d])([01]?\d|2[0-3])\s?[:.]\s?[0-5]\d(\s?[:.]\s?[0-5]\d)?(?!\d))");
    std::optional<Date> best;
    std::size_t best_segment = 0;
    double best_score = 0;
    std::vector<std::pair<std::string, double>>
        scored;  // each date and its score: the winner's margin
    for (std::size_t i = 0; i < n; ++i) {
      if (std::any_of(other_dates.begin(), other_dates.end(),
                      [&](const auto& o) { return o.first == i || o.second == i; }))
        continue;
      for (const auto& d : find_dates(r[i].text, rules.lexicon, order)) {
        const std::string rest = r[i].text.substr(0, d.begin) + " " + r[i].text.substr(d.end);
        double score = 10.0 - 8.0 * r[i].top / std::max(1, page.height);
        if (std::regex_search(rest, kTime)) score += 10;
        scored.emplace_back(format_date(d), score);
        if (!best || score > best_score) best = d, best_segment = i, best_score = score;
      }
    }
    if (best) {
      set("INVOICE_DATE", format_date(*best), best_segment);
      checks["date_by_position"] = true;
      note_contest("INVOICE_DATE", format_date(*best), best_score, scored);
    }
  }
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
  for (std::size_t l = 0; l < page.lines.size() && out.size() < kMaxDateRereads; ++l) {
    const std::vector<Word>& words = page.lines[l].words;
    for (std::size_t w = 0; w < words.size() && out.size() < kMaxDateRereads; ++w) {
      if (date_shaped(words[w].text)) out.push_back({l, w, w, "INVOICE_DATE"});
    }
  }
  return out;
}

}  // namespace docsift::ocr::detail
