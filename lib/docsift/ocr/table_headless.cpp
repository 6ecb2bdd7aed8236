// A table without its header (table.h, headless_table): a page that goes on with the rows of a
// table whose header was printed on the page before.
#include <algorithm>
#include <cstdlib>

#include "docsift/ocr/table.h"
#include "docsift/ocr/table_cut.h"

namespace docsift::ocr {

namespace {

// A line that reads as an item's row on its own: words, then a whole number, a unit price and the
// line's amount, the number times the price (to a cent). Its cut, or none.
std::optional<detail::Cut> item_line(const Line& line, const Lexicon& lexicon,
                                     const std::function<bool(const Word&)>& kept) {
  detail::Cut cut = detail::cut_line(line, {3, 0, 0}, lexicon, kept);
  if (cut.figures.size() != 3 || cut.words.empty() || !cut.date.empty()) return std::nullopt;
  if (!detail::bare_number(cut.figures[0].first)) return std::nullopt;
  const auto cents = [&](const std::string& figure) -> std::optional<long long> {
    const auto amount = parse_amount(figure, lexicon);
    return amount ? amount_cents(*amount) : std::nullopt;
  };
  const auto price = cents(cut.figures[1].first), amount = cents(cut.figures[2].first);
  const long long quantity = std::strtoll(cut.figures[0].first.c_str(), nullptr, 10);
  if (!price || !amount || quantity <= 0 || std::llabs(quantity * *price - *amount) > 1)
    return std::nullopt;
  return cut;
}

}  // namespace

std::optional<HeadlessTable> headless_table(const Page& page, const Lexicon& lexicon,
                                            const std::function<bool(const Word&)>& kept) {
  const std::size_t n = page.lines.size();
  for (std::size_t first = 0; first < n; ++first) {
    const auto row = item_line(page.lines[first], lexicon, kept);
    if (!row) continue;
    // The rows that follow it, their figures where its own stand; a line of words alone between
    // two of them is a wrapped description.
    std::size_t end = first + 1, rows = 1;
    for (std::size_t i = first + 1; i < n; ++i) {
      const auto next = item_line(page.lines[i], lexicon, kept);
      const int tolerance = 2 * std::max(1, page.lines[i].box.height());
      bool aligned = next.has_value();
      for (std::size_t k = 0; aligned && k < 3; ++k)
        aligned =
            std::abs(next->figures[k].second.right - row->figures[k].second.right) <= tolerance;
      if (aligned) {
        end = i + 1, ++rows;
      } else if (i + 1 >= n || !item_line(page.lines[i + 1], lexicon, kept) ||
                 !detail::cut_line(page.lines[i], {3, 0, 0}, lexicon, kept).figures.empty()) {
        break;
      }
    }
    if (rows < 2) continue;
    HeadlessTable table{{}, first, end};
    table.columns.push_back(
        {Column::kDescription, row->words.front()->box.left, row->words.back()->box.right});
    const Column kinds[] = {Column::kQuantity, Column::kUnitPrice, Column::kAmount};
    for (std::size_t k = 0; k < 3; ++k)
      table.columns.push_back(
          {kinds[k], row->figures[k].second.left, row->figures[k].second.right});
    return table;
  }
  return std::nullopt;
}

}  // namespace docsift::ocr
