// A receipt's items read without a column heading (docs/ocr.md, "Line items"): the lines above
// the receipt's summary (Subtotal, Total, GST, an item count) that end in an amount, each an item,
// its name on its own line or on the line above or below its figures. Every row read is given;
// `sums` says whether the page's arithmetic vouches for them: their amounts add up to a figure
// printed under them (alone, or with a tax, rounding or discount figure printed there too, or less
// the discounts printed among the items). Rows it leaves unchecked (one figure misread) keep the
// row line's low confidence and queue their lists, as dropping them would lose the rows read right.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"

namespace docsift::ocr {

struct ReceiptRows {
  std::vector<LineItem> items;
  std::vector<std::size_t> lines;  // the page's lines the rows were read from
  bool sums = false;               // their amounts add up to a figure printed under them
  // A row's line prints a figure with cents that none of its cells holds (its unit price, read
  // in no order the reader knows): the row's amount may not be its price.
  bool unplaced = false;
};

// The items of the first block of such lines above a summary line; none where no block is found.
// `kept(word)` says whether a word counts at all (specks do not). `vouched_only`: where the rows
// do not add up, only those whose own quantity times unit price is their amount, and none where
// no row does (what may replace a heading's rows, find_items.cpp).
std::optional<ReceiptRows> receipt_rows(const Page& page,
                                        const std::function<bool(const Word&)>& kept,
                                        bool vouched_only = false);

// Whether a line's text ends a receipt's items (a sum, a tax, a count of items, a payment:
// "Total Qty", "Sub Total Incl. GST", "Round Adjustmt"), as the reader above finds its summary: a
// row a heading's columns read under that name is no item (findings.h, `doubted`).
bool summary_line(const std::string& text);

// How many of the rows vouch for themselves: their quantity times their unit price is their
// amount, however the figures are printed ("RM 2.50").
std::size_t checked_rows(const std::vector<LineItem>& items);

// Whether two readings of a page's rows give the same amounts (each row's amount, else its unit
// price), in any order.
bool same_amounts(const std::vector<LineItem>& a, const std::vector<LineItem>& b);

}  // namespace docsift::ocr
