// A receipt's items without a column heading (table_receipt.h).
#include "docsift/ocr/table_receipt.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include "docsift/ocr/receipt_words.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

namespace {

using receipt_words::cents_of, receipt_words::checks, receipt_words::is_times, receipt_words::mark,
    receipt_words::name_word, receipt_words::plain, receipt_words::price_of,
    receipt_words::quantity_of, receipt_words::times_quantity, receipt_words::trailing_code,
    receipt_words::unit_word;

// kFigures: a quantity and its unit price alone, under its item's name and amount ("03 X RM 2.50").
enum class Kind { kOther, kItem, kAtPrice, kFigures, kName, kCode, kSkip, kSummary, kStop };

// One line as a receipt's item reads: its name's words, a quantity, a unit price and the amount.
struct Parsed {
  Kind kind = Kind::kOther;
  std::vector<std::string> name;
  std::optional<std::string> quantity, unit_price;
  long long amount = 0;  // in cents; a discount line's (kSkip) figure, whatever sign OCR read
  bool blank = false;    // no word that counts: marks OCR read from a rule (":", "-")
  // The kFigures line under it that gave its quantity and unit price.
  std::optional<std::size_t> figures;
  // An item's line that prints a figure with cents no cell holds (its unit price, in an order not
  // read: "5.90 ~ 3 17.70"): its amount may not be its price.
  bool unplaced = false;
};

// The figures before the amount, read from the right: "Q X P", "P X Q" where it checks, "QX P",
// "Q @ P" (a unit between: "122 pcs @ 18.90"), "@P", "Q P", "P Q" and "Q code P" where the
// quantity times the price is the amount, "*4". What is left names the item.
void read_figures(std::vector<std::string>& t, Parsed& p) {
  static const std::regex code(R"(^\d{5,}$)");  // an item's code between its quantity and price
  std::size_t k = t.size();
  const auto at = [&](std::size_t back) { return t[k - back]; };
  if (k >= 1 && trailing_code(at(1))) --k;  // a tax code before the amount ("@ 7.36 SR 131.40")
  if (k >= 1 && quantity_of(at(1)) && !std::isdigit(static_cast<unsigned char>(at(1)[0]))) {
    p.quantity = quantity_of(at(1)), k -= 1;  // "*4", "#1"
  } else if (k >= 3 && price_of(at(1)) && is_times(at(2)) && quantity_of(at(3))) {
    p.quantity = quantity_of(at(3)), p.unit_price = price_of(at(1)), k -= 3;
  } else if (k >= 3 && is_times(at(2)) && checks(quantity_of(at(1)), price_of(at(3)), p.amount)) {
    p.quantity = quantity_of(at(1)), p.unit_price = price_of(at(3)), k -= 3;  // "5.90 x 3 17.70"
  } else if (k >= 2 && price_of(at(1)) && times_quantity(at(2))) {
    p.quantity = times_quantity(at(2)), p.unit_price = price_of(at(1)), k -= 2;
  } else if (k >= 2 && price_of(at(1)) && (at(2) == "@" || at(1)[0] == '@')) {
    p.unit_price = price_of(at(1));
    k -= at(2) == "@" ? 2 : 1;
    if (k >= 1 && quantity_of(at(1))) {
      p.quantity = quantity_of(at(1)), k -= 1;
    } else if (k >= 2 && unit_word(at(1)) && quantity_of(at(2))) {
      p.quantity = quantity_of(at(2)), k -= 2;  // "122 pcs @ 18.90"
    }
  } else if (k >= 2 && checks(quantity_of(at(2)), price_of(at(1)), p.amount)) {
    p.quantity = quantity_of(at(2)), p.unit_price = price_of(at(1)), k -= 2;
  } else if (k >= 2 && checks(quantity_of(at(1)), price_of(at(2)), p.amount)) {
    p.quantity = quantity_of(at(1)), p.unit_price = price_of(at(2)), k -= 2;
  } else if (k >= 3 && std::regex_match(at(2), code) &&
             checks(quantity_of(at(3)), price_of(at(1)), p.amount)) {
    p.quantity = quantity_of(at(3)), p.unit_price = price_of(at(1)), k -= 3;  // "2 27755 5.80"
  }
  // Prices that do not check (an ex-tax price beside the price with tax, a discount): the one a
  // quantity before them times to the amount is the unit price ("107636 3 78.00 82.68 248.04").
  std::vector<std::string> unchecked;
  while (k >= 1 && price_of(at(1))) unchecked.push_back(at(1)), --k;
  for (const std::string& price : unchecked) {
    if (!p.quantity && k >= 1 && checks(quantity_of(at(1)), price_of(price), p.amount))
      p.quantity = quantity_of(at(1)), p.unit_price = price_of(price), --k;
  }
  // A discount's column after them: "P Q 0.00 A" ("RM 2.80 2 0.00 RM5.60").
  if (!unchecked.empty() && !p.quantity && k >= 2 &&
      checks(quantity_of(at(1)), price_of(at(2)), p.amount))
    p.quantity = quantity_of(at(1)), p.unit_price = price_of(at(2)), k -= 2;
  if (!p.quantity && !p.unit_price) {  // specks between them ("2.13: 3.8 @ 3"): where they check
    if (const auto pair = receipt_words::checked_pair(t, k, p.amount))
      p.quantity = pair->quantity, p.unit_price = pair->unit_price, k = pair->first;
  }
  const auto other_figure = [&](const std::string& w) {
    const auto c = cents_of(w.front() == '@' ? w.substr(1) : w);
    return c && *c != 0 && *c != p.amount && !(p.unit_price && price_of(w) == p.unit_price);
  };
  p.unplaced = std::any_of(unchecked.begin(), unchecked.end(), other_figure) ||
               std::any_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(k), other_figure);
  t.resize(k);
  // A quantity printed first: "1x", or a number the price checks ("2 TOWEL ROD 6.00 12.00"), or a
  // number of one or two digits before the item's name (McDonald's "2 VM McChicken 15.90").
  static const std::regex small(R"(^\d{1,2}$)"), glued(R"(^\d[A-Z]$)");
  if (t.size() >= 2 && !p.quantity && std::regex_match(t.front(), glued)) {
    p.quantity = t.front().substr(0, 1), t.front().erase(0, 1);  // "1M Porridge": 1, "M Porridge"
  } else if (t.size() >= 2 && !p.quantity) {
    if (times_quantity(t.front())) {
      p.quantity = times_quantity(t.front()), t.erase(t.begin());
    } else if (checks(quantity_of(t.front()), p.unit_price, p.amount) ||
               (std::regex_match(t.front(), small) && name_word(t[1]))) {
      p.quantity = quantity_of(t.front()), t.erase(t.begin());
    }
  }
}

// A name as printed, without a row number before it ("1.", "2") and marks OCR read around it.
std::vector<std::string> name_of(std::vector<std::string> t) {
  static const std::regex row_number(R"(^\W*\d{1,2}[.,]?$)");  // "1.", "“1,"; not 7" (inches)
  while (!t.empty() &&
         (mark(t.front()) || (t.size() >= 2 && std::regex_match(t.front(), row_number))))
    t.erase(t.begin());
  while (!t.empty() && mark(t.back())) t.pop_back();
  return t;
}

// What ends an item block (a sum, a tax, a count of items, a payment; not a tax followed by a
// description's words, "Tax return preparation"), what sits in it and is no item (a discount), and
// what cannot be in it (a dated or labelled line of the receipt's head).
Kind summary_kind(const std::string& lowered) {
  static const std::regex summary(
      R"(total(\b|qty)|te[mn]\s*count|^\W*(sub\W*tota|tot\b|totqty|gross|net\b|nett|items?\s*\(?s?\)?\s*:|\d+\s*items?\b|qty\s*:|quantity|amount incl|serv\w*\.?\s*ch|gst|tax\b(?!\s+[a-z]{3,}\s+[a-z]{3,})|rounding|round\b|cash\b|change\b))");
  // A discount or a tax by its rate: a percentage, then a figure ("@NIsc 10.00% -5.59").
  static const std::regex skip(
      R"(^\W*(item\s+)?(saving|less\b|member|promo)|\bdisc\w*\b|\d\s*%.*\d[.,]\d\d\W*$)");
  static const std::regex stop(
      R"((\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b)|(\b\d{1,2}-[a-z]{3}-\d{2,4}\b)|([a-z]{4,}\s*:)|tax invoice|receipt|invoice\s*no)");
  // A column heading ("Item Qty Price Amount") names no item.
  static const std::regex heading(
      R"(\b(description|desc|qty|quantity|price|amount|amt|item|total|u\.p|uom)\b.*\b(qty|quantity|price|amount|amt|item|total|tax|rm)\b)");
  if (std::regex_search(lowered, summary)) return Kind::kSummary;
  if (std::regex_search(lowered, heading)) return Kind::kStop;
  if (std::regex_search(lowered, skip)) return Kind::kSkip;
  if (std::regex_search(lowered, stop)) return Kind::kStop;
  return Kind::kOther;
}

Parsed parse_line(const Line& line, const std::function<bool(const Word&)>& kept) {
  Parsed p;
  std::vector<std::string> t;
  std::string lowered;
  for (const Word& w : line.words) {  // every word in `lowered`: a label's colon
    if (!lowered.empty()) lowered += ' ';
    lowered += lowercase(w.text);
    if (kept(w) || w.text == "@") t.push_back(w.text);
  }
  p.kind = summary_kind(lowered);
  if (p.kind == Kind::kSummary || p.kind == Kind::kStop) return p;
  p.blank = std::all_of(t.begin(), t.end(), mark);
  receipt_words::mend(t);
  // A discount: its figure, whatever sign OCR read ("~5,40", "RM-0.41").
  if (p.kind == Kind::kSkip) {
    std::string figure;
    for (const char c : t.empty() ? std::string() : t.back()) {
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ',') figure += c;
    }
    p.amount = cents_of(figure).value_or(0);
    return p;
  }
  // A quantity and its unit price alone ("03 X RM2.50", "@8 X RM2.95"): its item is over it.
  const std::string count = t.size() != 3         ? std::string()
                            : t[0].front() == '@' ? t[0].substr(1)
                                                  : t[0];
  if (t.size() == 3 && is_times(t[1]) && price_of(t[2]) && quantity_of(count)) {
    p.kind = Kind::kFigures, p.unit_price = price_of(t[2]), p.quantity = quantity_of(count);
    return p;
  }
  receipt_words::restore_point(t);
  const std::string last = t.empty() ? "" : t.back();
  const bool at = !last.empty() && (last[0] == '@' || (t.size() >= 2 && t[t.size() - 2] == "@"));
  const auto amount = last.empty() ? std::nullopt : price_of(last);
  if (amount && at) {  // a name's line with its unit price: "LED TUBE*D/L -FNM @16.00"
    p.kind = Kind::kAtPrice, p.unit_price = amount;
    t.pop_back();
    if (!t.empty() && t.back() == "@") t.pop_back();
  } else if (amount) {
    p.kind = Kind::kItem, p.amount = *cents_of(*amount);
    t.pop_back();
    // Marks OCR read before the amount ("3 X 2.9000 : 8.70", "ROM = 5,90"); not an "@".
    while (!t.empty() && t.back() != "@" && mark(t.back())) t.pop_back();
    read_figures(t, p);
  }
  const bool named = std::any_of(t.begin(), t.end(), name_word);
  if (named) p.name = name_of(t);
  if (p.kind == Kind::kOther) p.kind = named ? Kind::kName : Kind::kCode;
  return p;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) append_joined(s, " ", w);
  return s;
}

// The first item line of the block above the summary line `end`: items, with names, codes and
// other lines among them (a parking ticket's times under its item), no more than three lines of
// no item in a row. `end` when none.
std::size_t block_start(const std::vector<Parsed>& lines, std::size_t end) {
  std::size_t first = end, gap = 0;
  for (std::size_t i = end; i-- > 0;) {
    const Kind k = lines[i].kind;
    if (k == Kind::kItem) {
      first = i, gap = 0;
    } else if (k == Kind::kSummary || (!lines[i].blank && ++gap > 3)) {
      break;
    }
  }
  return first;
}

// The name lines over the block's first item line: up to two right over it (a name wrapped), or
// the one over a barcode's or shelf's line there (Mr D.I.Y.'s).
std::vector<std::size_t> names_over(const std::vector<Parsed>& lines, std::size_t first) {
  const auto name = [&](std::size_t i) {
    return lines[i].kind == Kind::kName || lines[i].kind == Kind::kAtPrice;
  };
  if (first > 1 && lines[first - 1].kind == Kind::kCode && name(first - 2)) return {first - 2};
  std::vector<std::size_t> over;
  for (std::size_t i = first; i-- > 0 && over.size() < 2 && name(i);) over.insert(over.begin(), i);
  return over;
}

struct Read {
  LineItem item;
  std::vector<std::size_t> lines;  // the page's lines it was read from
  bool unplaced = false;           // Parsed::unplaced of its item's line
};

// Each item line's name: its own words, else the name lines over it or, where the last item line
// without a name has a name line under it (across marks OCR read from a rule), those under it.

std::vector<Read> rows_of(const Page& page, const std::vector<Parsed>& lines, std::size_t first,
                          std::size_t end) {
  std::size_t last_bare = end;
  for (std::size_t i = first; i < end; ++i) {
    if (lines[i].kind == Kind::kItem && lines[i].name.empty()) last_bare = i;
  }
  // The next line that is not a mark OCR read from a rule (".", ":").
  const auto next = [&](std::size_t i) {
    while (++i < end && lines[i].blank) {
    }
    return i;
  };
  const bool below = next(last_bare) < end && lines[next(last_bare)].kind == Kind::kName;
  std::vector<Read> out;
  std::vector<std::size_t> pending = below ? std::vector<std::size_t>{} : names_over(lines, first);
  for (std::size_t i = first; i < end; ++i) {
    const Parsed& p = lines[i];
    if (!below && (p.kind == Kind::kName || p.kind == Kind::kAtPrice)) pending.push_back(i);
    if (p.kind == Kind::kSkip) pending.clear();
    if (p.kind != Kind::kItem) continue;
    LineItem item{
        joined(p.name), p.quantity, p.unit_price, plain(p.amount), {}, {}, {}, {}, {}, {}, {}};
    std::vector<std::size_t> used{i};
    if (p.figures) used.push_back(*p.figures);
    if (item.description.empty() && below) {
      for (std::size_t j = next(i); j < end && lines[j].kind == Kind::kName; j = next(j))
        pending.push_back(j);
    }
    if (item.description.empty()) {
      for (const std::size_t j : pending) {
        append_joined(item.description, " ", joined(lines[j].name));
        if (!item.unit_price && lines[j].unit_price) item.unit_price = lines[j].unit_price;
        used.push_back(j);
      }
    }
    pending.clear();
    if (item.description.empty()) continue;
    item.box = page.lines[i].box;
    for (const std::size_t j : used) item.box = item.box.with(page.lines[j].box);
    out.push_back({std::move(item), std::move(used), p.unplaced});
  }
  return out;
}

// Whether `sum` is a figure printed on the summary's lines, or one of them less or more another
// (a tax, a rounding, a discount printed there).
bool sum_printed(const Page& page, std::size_t end, long long sum,
                 const std::function<bool(const Word&)>& kept) {
  std::vector<long long> figures;
  for (std::size_t i = end; i < page.lines.size() && i < end + 12; ++i) {
    for (const Word& w : page.lines[i].words) {
      const auto c = kept(w) ? price_of(w.text) : std::nullopt;
      if (c && *cents_of(*c) != 0) figures.push_back(std::llabs(*cents_of(*c)));
    }
  }
  for (const long long a : figures) {
    if (a == sum) return true;
    for (const long long b : figures) {
      if (a != b && (sum + a == b || sum - a == b)) return true;
    }
  }
  return false;
}

// A summary line that prints a sum ("Total Sales : 8.90"), not a label alone ("Total ,").
bool summed(const Line& line, const std::function<bool(const Word&)>& kept) {
  return std::any_of(line.words.begin(), line.words.end(),
                     [&](const Word& w) { return kept(w) && price_of(w.text); });
}

}  // namespace

std::optional<ReceiptRows> receipt_rows(const Page& page,
                                        const std::function<bool(const Word&)>& kept,
                                        bool vouched_only) {
  std::vector<Parsed> lines;
  for (const Line& line : page.lines) lines.push_back(parse_line(line, kept));
  // A name's line whose figure is its unit price, over a line of figures without a name: the "@"
  // before the price misread ("ISTIMEWA 653.50" over "9558606389392 *1 53.50").
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    Parsed& a = lines[i];
    const Parsed& b = lines[i + 1];
    if (a.kind == Kind::kItem && !a.name.empty() && !a.quantity && !a.unit_price &&
        b.kind == Kind::kItem && b.name.empty() && b.quantity)
      a.kind = Kind::kAtPrice, a.unit_price = plain(a.amount);
  }
  // An item's line over its quantity and unit price ("620 CARNATION RM7.50" over "03 X RM 2.50").
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    Parsed& a = lines[i];
    Parsed& b = lines[i + 1];
    if (a.kind == Kind::kItem && !a.quantity && !a.unit_price && b.kind == Kind::kFigures &&
        checks(b.quantity, b.unit_price, a.amount))
      a.quantity = b.quantity, a.unit_price = b.unit_price, a.figures = i + 1, b.kind = Kind::kCode;
  }
  for (std::size_t end = 0; end < lines.size(); ++end) {
    if (lines[end].kind != Kind::kSummary) continue;
    const std::size_t first = block_start(lines, end);
    // The first sum printed ends the items: rows under it are a tax summary's ("SR 6 8.90 0.53").
    if (first == end && summed(page.lines[end], kept)) return std::nullopt;
    if (first == end) continue;
    std::vector<Read> reads = rows_of(page, lines, first, end);
    if (reads.empty()) return std::nullopt;
    long long sum = 0;
    for (const Read& r : reads) sum += cents_of(*r.item.amount).value_or(0);
    // Discounts printed among the items come off their sum ("Item promo @9,99 -5,00").
    long long discounts = 0;
    for (std::size_t i = first; i < end; ++i) {
      if (lines[i].kind == Kind::kSkip) discounts += lines[i].amount;
    }
    ReceiptRows rows;
    rows.sums =
        sum != 0 && (sum_printed(page, end, std::llabs(sum), kept) ||
                     (discounts != 0 && sum_printed(page, end, std::llabs(sum) - discounts, kept)));
    // Every row read is given, whether or not the sums vouch for it: a row the arithmetic leaves
    // unchecked (a figure misread on it or on another) gets the row line's low confidence and
    // queues its lists (docs/confidence.md), rather than being dropped unseen. `vouched_only`
    // keeps, where the rows do not add up, those whose quantity times unit price is their amount.
    for (Read& r : reads) {
      if (vouched_only && !rows.sums &&
          !checks(r.item.quantity, r.item.unit_price, cents_of(*r.item.amount).value_or(0)))
        continue;
      rows.unplaced = rows.unplaced || r.unplaced;
      rows.items.push_back(std::move(r.item));
      rows.lines.insert(rows.lines.end(), r.lines.begin(), r.lines.end());
    }
    if (rows.items.empty()) return std::nullopt;
    return rows;
  }
  return std::nullopt;
}

namespace {

// A cell's figure in cents without its currency, however it is printed ("RM 13.50", "$7.10").
std::optional<long long> cell_cents(const std::optional<std::string>& cell) {
  std::string digits;
  for (const char c : cell.value_or("")) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ',' || c == '-')
      digits += c;
  }
  return cents_of(digits);
}

}  // namespace

bool summary_line(const std::string& text) {
  return summary_kind(lowercase(text)) == Kind::kSummary;
}

std::size_t checked_rows(const std::vector<LineItem>& items) {
  return static_cast<std::size_t>(std::count_if(items.begin(), items.end(), [](const LineItem& i) {
    const auto price = cell_cents(i.unit_price), amount = cell_cents(i.amount);
    return price && amount && checks(i.quantity, plain(*price), *amount);
  }));
}

bool same_amounts(const std::vector<LineItem>& a, const std::vector<LineItem>& b) {
  const auto amounts = [](const std::vector<LineItem>& items) {
    std::vector<long long> out;
    for (const LineItem& i : items)
      out.push_back(cell_cents(i.amount ? i.amount : i.unit_price).value_or(0));
    std::sort(out.begin(), out.end());
    return out;
  };
  return amounts(a) == amounts(b);
}

}  // namespace docsift::ocr
