// The page's facts (page_facts.h): its date order, money, tax rows, rounding and heading.
#include "docsift/ocr/page_facts.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace docsift::ocr::detail {

namespace {

constexpr long long kMinTaxedNet = 1000;  // 10.00: see add_tax_rows

// A net amount and the tax on it, in that order on one line: the tax within a cent of a whole
// percentage (1-25 %) of a net of at least kMinTaxedNet, so that a percent is 10 cents or more and
// a pair of unrelated amounts seldom passes. Their sum is what a bill with that one rate comes to.
void add_tax_rows(const std::vector<Amount>& amounts, std::set<long long>& row_sums) {
  for (std::size_t a = 0; a < amounts.size(); ++a) {
    const long long net = amounts[a].cents;
    if (!amounts[a].has_cents || net < kMinTaxedNet) continue;
    for (std::size_t b = a + 1; b < amounts.size(); ++b) {
      const long long tax = amounts[b].cents;
      if (!amounts[b].has_cents || tax <= 0 || tax * 4 > net) continue;
      if (whole_percentage(net, tax, 1, 25)) row_sums.insert(net + tax);
    }
  }
}

// PageFacts::registration: the first segment in the top of the page holding a number of 5 digits or
// more (spaces inside it read apart: "78941 7-W") and its check letter, no letter or digit on
// either side; its digits without leading zeros.
std::string registration_at_top(const Page& page, const std::vector<Segment>& r) {
  static const std::regex kNumber(
      R"((?:^|[^0-9A-Za-z])(\d[\d ]{4,})\s*-\s*[A-Za-z](?![A-Za-z0-9]))");
  for (const Segment& seg : r) {
    if (seg.top > page.height * kTopOfPage) continue;
    std::smatch m;
    if (!std::regex_search(seg.text, m, kNumber)) continue;
    std::string digits;
    for (const char c : m[1].str()) {
      if (c != ' ' && (c != '0' || !digits.empty())) digits += c;
    }
    if (digits.size() >= 5) return digits;
  }
  return {};
}

}  // namespace

PageFacts page_facts(const Page& page, const std::vector<Segment>& r, const Rules& rules,
                     DateOrderRule date_order) {
  PageFacts f;
  f.order = date_order_of(r, rules, date_order);
  std::map<std::string, int> marks;
  std::vector<int> heights;
  for (const auto& seg : r) {
    heights.push_back(seg.height);
    std::set<long long> here;
    for (const auto& a : find_amounts(seg.text, rules.lexicon)) {
      if (!a.currency.empty()) ++marks[a.currency];
      f.with_cents += a.has_cents ? 1 : 0;
      if (a.has_cents) f.printed.insert(a.cents);
      here.insert(a.cents);
    }
    for (const long long v : here) ++f.segments_printing[v];
  }
  if (!heights.empty()) f.median_height = std::max(1, median_of(std::move(heights)));
  f.last_line = std::max<std::size_t>(1, page.lines.size() - 1);
  int best = 0;
  for (const auto& [mark, count] : marks) {
    if (count > best) best = count, f.currency = mark;
  }
  f.tax_summary.assign(page.lines.size(), false);
  f.rounds.assign(page.lines.size(), false);
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    const std::string text = page.lines[i].text();
    const std::string l = lowercase(text);
    const std::vector<Amount> amounts = find_amounts(text, rules.lexicon);  // once a line
    const auto says = [&](const std::vector<std::string>&
                              phrases) {  // as labels are matched: misread letters too
      return std::any_of(phrases.begin(), phrases.end(),
                         [&](const auto& w) { return !find_label(l, w).empty(); });
    };
    f.rounds[i] = says(rules.total.rounding);
    if (!f.rounding_line && f.rounds[i]) {
      f.rounding_line = i;
      for (const auto& a : amounts) {
        if (a.has_cents && a.cents <= kMaxRounding) f.rounding_amount = a.cents;
      }
    }
    if (says(rules.total.tax_summary)) {
      for (std::size_t k = i; k < page.lines.size() && k <= i + 6; ++k) f.tax_summary[k] = true;
    }
    add_tax_rows(amounts, f.row_sums);
  }
  f.heading = heading_of(page, r, rules);
  f.registration = registration_at_top(page, r);
  return f;
}

DateOrder date_order_of(const std::vector<Segment>& r, const Rules& rules, DateOrderRule rule) {
  if (rule != DateOrderRule::Auto)
    return rule == DateOrderRule::Mdy ? DateOrder::Mdy : DateOrder::Dmy;
  int day_first = 0, month_first = 0;
  for (const auto& seg : r) {
    for (const auto& d : find_dates(seg.text, rules.lexicon)) {
      // Dots are the day-first countries' separator (31.12.2025); a dotted reading that works
      // only month first is most often not a date at all: a price column's "2.13.12".
      const bool dotted = seg.text.substr(d.begin, d.end - d.begin).find('.') != std::string::npos;
      day_first += d.day_first_only ? 1 : 0;
      month_first += d.month_first_only && !dotted ? 1 : 0;
    }
  }
  return month_first > day_first ? DateOrder::Mdy : DateOrder::Dmy;
}

Heading heading_of(const Page& page, const std::vector<Segment>& r, const Rules& rules) {
  Heading out;
  const std::size_t n = r.size();
  std::optional<std::size_t>& heading = out.at;
  for (std::size_t i = 0; i < n && !heading; ++i) {
    if (r[i].top > page.height / 2) break;
    // Under the top third (a tall receipt's seller, address and tax number fill it), only a line
    // that is mostly its heading: "-TAX INVOICE-", "SIMPLIFIED TAX INVOICE", at least half of its
    // letters the heading's.
    const bool low = r[i].top > page.height / 3;
    // A heading word inside a label ("invoice" in "Invoice date") is not a heading.
    const auto heading_word = [&](const std::string& w) {
      const std::size_t at = find_phrase(r[i].lowered, w);
      if (low && at != std::string::npos && 2 * letters_in(w) < letters_in(r[i].lowered))
        return false;
      return at != std::string::npos &&
             std::none_of(r[i].hits.begin(), r[i].hits.end(),
                          [&](const Hit& h) { return h.at <= at && at + w.size() <= h.end; });
    };
    for (const auto& [type, words] : rules.document_types) {
      if (std::any_of(words.begin(), words.end(), heading_word)) {
        out.type = type;
        heading = i;
        break;
      }
    }
  }
  // None found: a line anywhere on the page that is mostly a heading, read glued or misread, or
  // that begins one the next line ends, and holds no digit ("TAX INVOICE NO. 039170", "Invoice
  // No: 2018…" are no headings). Repaired: not read as printed.
  std::vector<std::pair<std::string, std::vector<std::string>>> spelled;  // words' letters alone
  if (!heading) {
    for (const auto& [type, words] : rules.document_types) {
      spelled.emplace_back(type, std::vector<std::string>());
      for (const std::string& w : words) spelled.back().second.push_back(letters_only(w));
    }
  }
  const auto digits = [&](std::size_t i) {
    return r[i].text.find_first_of("0123456789") != std::string::npos;
  };
  std::vector<std::optional<std::string>> letters(heading ? 0 : n);  // each segment's, once
  const auto letters_at = [&](std::size_t i) -> const std::string& {
    if (!letters[i]) letters[i] = letters_only(r[i].lowered);
    return *letters[i];
  };
  const std::string none;
  for (std::size_t i = 0; i < n && !heading; ++i) {
    if (digits(i)) continue;
    const std::string& line = letters_at(i);
    const std::string& next =
        i + 1 < n && r[i + 1].line == r[i].line + 1 && !digits(i + 1) ? letters_at(i + 1) : none;
    for (const auto& [type, words] : spelled) {
      if (std::any_of(words.begin(), words.end(),
                      [&](const std::string& w) { return garbled_heading(line, next, w); })) {
        out.type = type, heading = i;
        out.garbled = true;
        break;
      }
    }
  }
  return out;
}

}  // namespace docsift::ocr::detail
