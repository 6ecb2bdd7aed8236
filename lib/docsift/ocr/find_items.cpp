// Line items: a table's rows under its header. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/receipt_words.h"
#include "docsift/ocr/table_cut.h"
#include "docsift/ocr/table_receipt.h"

namespace docsift::ocr::detail {

// One line of a table as an item: from the right, the price (an amount), then a whole-number
// quantity; the rest describes. Specks read as short words with little confidence ("E)", "z") are
// dropped. None when nothing with letters is left to describe it.
std::optional<FieldFinder::ItemRow> FieldFinder::item_row(std::size_t line) const {
  std::vector<std::string> words;
  for (const auto& w : page.lines[line].words) {
    if (!std::any_of(w.text.begin(), w.text.end(), word_char) && w.text != "&") continue;
    if (w.text.size() <= 3 && w.confidence < kSpeckConfidence) continue;
    words.push_back(w.text);
  }
  std::optional<std::string> price;
  if (!words.empty()) {
    if (const auto a = money(words.back(), false)) {
      price = format_amount(a->cents, a->currency);
      words.pop_back();
    }
  }
  std::optional<std::string> quantity;
  if (!words.empty() && price &&
      (words.back() == "l" || words.back() == "I" || words.back() == "|")) {
    words.back() = "1";  // a lone 1 before the price, read as a letter
  }
  if (!words.empty() && words.back().size() <= 4 &&
      std::all_of(words.back().begin(), words.back().end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    quantity = words.back();
    words.pop_back();
  }
  std::string description;
  for (const auto& w : words) append_joined(description, " ", w);
  description = clean_text(description);
  if (description.empty() || !has_letters(description)) return std::nullopt;
  return ItemRow{description, quantity, price};
}

std::size_t FieldFinder::unlabelled_words(const std::string& lowered, std::size_t letters,
                                          const char* kind) const {
  const std::vector<Hit> hits = label_hits(lowered, rules);
  std::size_t count = 0;
  for (const Piece& p : pieces_of(lowered)) {
    const bool labelled = std::any_of(hits.begin(), hits.end(), [&](const Hit& h) {
      return h.at < p.end && p.begin < h.end &&
             (kind == nullptr || rules.fields[h.rule].kind == kind);
    });
    const bool abbreviated = lowered[p.end - 1] == '.';
    const std::size_t in_word = letters_in(p.word);
    if (!labelled && !abbreviated && in_word >= letters &&
        (letters < 3 || in_word == p.word.size()))
      ++count;
  }
  return count;
}

namespace {

// A quantity as a table's cell prints it: a whole number (up to 4 digits) or one with decimals
// ("2.5" hours); a lone 1 read as a letter is a 1.
std::optional<std::string> quantity_of(std::string cell) {
  if (cell == "l" || cell == "I" || cell == "|") cell = "1";
  if (cell.empty() || cell.size() > 7) return std::nullopt;
  int dots = 0;
  for (const char c : cell) {
    if (c == '.' || c == ',') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return std::nullopt;
    }
  }
  if (dots > 1 || !std::isdigit(static_cast<unsigned char>(cell.front())) ||
      !std::isdigit(static_cast<unsigned char>(cell.back())))
    return std::nullopt;
  return cell;
}

// The lists' evidence: every word of the rows they were read from, under the table's header.
// Whether a row's name holds a figure with cents: the row's figures read into its name ("2 Meat
// 2 Vege $8.70 1", under a heading whose columns were misread).
bool figures_in_names(const std::vector<LineItem>& items) {
  return std::any_of(items.begin(), items.end(), [](const LineItem& i) {
    std::istringstream words(i.description);
    std::string w;
    while (words >> w) {
      if (receipt_words::price_of(w)) return true;
    }
    return false;
  });
}

// The quantities and unit prices the rows give.
std::size_t figures(const std::vector<LineItem>& items) {
  std::size_t n = 0;
  for (const LineItem& i : items) n += (i.quantity ? 1 : 0) + (i.unit_price ? 1 : 0);
  return n;
}

Evidence lists_evidence(const Page& page, const std::vector<std::size_t>& rows) {
  Evidence e;
  e.labelled = true;
  double sum = 0;
  int count = 0;
  for (const std::size_t i : rows) {
    for (const Word& w : page.lines[i].words) {
      e.box = count == 0 ? w.box : e.box.with(w.box);
      e.word_min = std::min(e.word_min, static_cast<double>(w.confidence));
      sum += w.confidence, ++count;
    }
  }
  if (count > 0) e.word_mean = sum / count;
  return e;
}

}  // namespace

std::optional<FieldFinder::ItemRow> FieldFinder::table_item(const TableRow& row,
                                                            bool unit_prices) const {
  const auto cell = [&](Column c) {
    const auto it = row.cells.find(c);
    return it == row.cells.end() ? std::string() : it->second;
  };
  const auto amount = [&](Column c) -> std::optional<std::string> {
    const auto a = money(cell(c), false);
    return a ? std::optional(format_amount(a->cents, a->currency)) : std::nullopt;
  };
  // A transaction's row: its amount, else its credit or debit (the sign is row_amounts_of's).
  std::optional<std::string> price = amount(unit_prices ? Column::kUnitPrice : Column::kAmount);
  if (!price) price = amount(Column::kCredit);
  if (!price) price = amount(Column::kDebit);
  ItemRow item{clean_text(cell(Column::kDescription)), quantity_of(cell(Column::kQuantity)), price};
  // A header whose quantity OCR misread ("Qtée") over a unit price: a whole number ending the
  // description, before the price, is the quantity, as a line read from the right has it. Not in a
  // table that prints no unit price (a statement's "EFTPOS Coles 0862", "Support hours block 10").
  if (unit_prices && !row.cells.count(Column::kQuantity) && price) {
    const std::size_t space = item.description.rfind(' ');
    const auto last =
        space == std::string::npos ? std::nullopt : quantity_of(item.description.substr(space + 1));
    if (last && last->find_first_of(".,") == std::string::npos && last->size() <= 4) {
      item.quantity = last;
      item.description = clean_text(item.description.substr(0, space));
    }
  }
  if (item.description.empty() || !has_letters(item.description)) return std::nullopt;
  return item;
}

namespace {

// Specks: short words of little confidence with fewer than two letters or digits ("E)", "z"; not
// "A4").
bool kept_word(const Word& w) {
  const auto letters = std::count_if(w.text.begin(), w.text.end(), word_char);
  const bool marks = letters > 0 || w.text == "&" || w.text == "-" || w.text == "$" ||
                     w.text == "€" || w.text == "£";
  return marks && !(w.text.size() <= 3 && w.confidence < kSpeckConfidence && letters < 2);
}

}  // namespace

std::vector<Stop> FieldFinder::table_stops() const {
  std::vector<Stop> stops(page.lines.size(), Stop::kNo);
  for (std::size_t k = 0; k < r.size(); ++k) {
    const Segment& seg = r[k];
    if (seg.hits.empty() || seg.hits.front().at != 0) continue;
    const LabelRule& rule = rules.fields[seg.hits.front().rule];
    if (rule.kind != "amount" && rule.kind != "date" && rule.kind != "period") continue;
    const bool first = k == 0 || r[k - 1].line != seg.line;
    // A label after a date ("22/03   EFTPOS Woolworths", a statement's row), or followed by a
    // description's words ("Tax return preparation"), begins a description.
    bool dated = !first;
    for (std::size_t before = k; dated && before-- > 0 && r[before].line == seg.line;) {
      for (const Piece& p : pieces_of(r[before].text))
        dated = dated && date_word(p.word, rules.lexicon);
    }
    if (dated || (first && unlabelled_words(seg.lowered) >= 2)) continue;
    const bool sum = rule.field == "SUBTOTAL" || rule.field == "GST" || rule.field == "TOTAL" ||
                     rule.field == "CLOSING_BALANCE";
    Stop& stop = stops[seg.line];
    stop = std::max(stop, sum ? Stop::kYes : Stop::kUnlessRowFollows);
  }
  return stops;
}

bool FieldFinder::table_lines(std::vector<TableColumn>& columns, std::size_t& first,
                              std::size_t& end) const {
  std::optional<std::size_t> header;
  for (std::size_t i = 0; i < page.lines.size() && !header; ++i) {
    if (auto named = table_header(page.lines[i], rules.table))
      header = i, columns = std::move(*named);
  }
  if (header) {
    first = *header + 1;
    end = table_end(page, *header, columns, table_stops(), rules.lexicon, kept_word);
    return true;
  }
  auto headless = headless_table(page, rules.lexicon, kept_word);
  if (!headless) return false;
  columns = std::move(headless->columns);
  first = headless->first, end = headless->end;
  return true;
}

Rows FieldFinder::line_items() const {
  Rows out;
  std::vector<LineItem>& items = out.items;
  std::vector<WordRun>& misread_figures = out.misread;
  std::vector<TableColumn> columns;
  std::size_t first = 0, end = 0;
  if (!table_lines(columns, first, end)) return receipt_items(receipt_rows(page, kept_word));
  const auto has = [&](Column c) {
    return std::any_of(columns.begin(), columns.end(),
                       [&](const TableColumn& t) { return t.kind == c; });
  };
  // A table of transactions: a statement's, or one that prints debits, credits or balances, or
  // dated rows between an opening and a closing balance (whatever the page's heading was read
  // as).
  const bool transactions = out.transactions =
      statement() || has(Column::kDebit) || has(Column::kCredit) || has(Column::kBalance) ||
      (has(Column::kDate) && found.count("OPENING_BALANCE") && found.count("CLOSING_BALANCE"));
  std::vector<std::string> descriptions, quantities, prices;
  std::vector<std::size_t> rows;                  // the lines read as items: the lists' evidence
  std::vector<std::optional<long long>> amounts;  // each transaction's, signed, in cents
  for (const TableRow& row : table_rows(page, first, end, columns, rules.lexicon, kept_word)) {
    std::optional<ItemRow> item = table_item(row, has(Column::kUnitPrice));
    // A row whose cells gave neither a quantity nor a price (a header misread, so a price sat in
    // the quantity's column; a receipt's "RM12.00" glued to a word): its own line, read from the
    // right. Not a dated row or one with a balance (a statement's "Opening balance").
    if (item && !item->price && !item->quantity && !row.cells.count(Column::kDate) &&
        !row.cells.count(Column::kBalance))
      item = item_row(row.lines.front());
    // A row that is a label and its amount ("Opening balance", "Subtotal" among the rows) is no
    // item.
    const auto described = row.cells.find(Column::kDescription);
    if (!item || unlabelled_words(lowercase(described != row.cells.end() ? described->second
                                                                         : item->description),
                                  1, "amount") == 0)
      continue;
    LineItem read = line_item(row, *item, has(Column::kUnitPrice));
    // An item's row gives a figure; one that gives none is a heading's words misread, a wrapped
    // line or a detail line read as a row of its own.
    if (!transactions && !read.quantity && !read.unit_price && !read.amount) continue;
    items.push_back(std::move(read));
    for (const TableRow::Misread& m : row.misread)
      misread_figures.push_back(
          {m.line, m.word, m.word, m.column == Column::kQuantity ? "QUANTITIES" : "PRICES"});
    descriptions.push_back(item->description);
    if (item->quantity) quantities.push_back(*item->quantity);
    if (item->price) prices.push_back(*item->price);
    rows.insert(rows.end(), row.lines.begin(), row.lines.end());
    if (transactions) amounts.push_back(row_amount(row, *item));
  }
  // A receipt's rows that add up to its total, or more of whose rows check (quantity times unit
  // price) than the heading's, where the heading's give other amounts (a name over its figures, a
  // heading found in the footer), or the same amounts but fewer quantities and prices (a quantity
  // column misread: "2 ChicMcMuf fin" as a name) or names holding figures ("Vege $8.70 1"); never
  // a statement's. Only receipt rows that vouch for themselves replace a heading's.
  if (auto receipt = transactions ? std::nullopt : receipt_rows(page, kept_word, true);
      receipt && (receipt->sums || checked_rows(receipt->items) > checked_rows(items)) &&
      (!same_amounts(items, receipt->items) || figures(receipt->items) > figures(items) ||
       (figures_in_names(items) && !figures_in_names(receipt->items)))) {
    items.clear(), misread_figures.clear();  // the heading's rows, and their figures, are not used
    return receipt_items(std::move(receipt));
  }
  if (transactions) {
    misread_figures.clear();  // a statement's rows: no items' figures to read again
    amounts_from_balances(items, amounts, has(Column::kDebit) || has(Column::kCredit));
    for (const auto& a : amounts) {
      if (a) out.amounts.push_back(*a);
    }
  }
  const auto joined = [](const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) append_joined(s, " | ", item);
    return s;
  };
  if (!descriptions.empty()) out.lists["DESCRIPTIONS"] = joined(descriptions);
  // A table of transactions (debits, credits or balances) has no line items' quantities or prices,
  // whatever the page's heading was read as.
  if (!transactions && !quantities.empty()) out.lists["QUANTITIES"] = joined(quantities);
  if (!transactions && !prices.empty()) out.lists["PRICES"] = joined(prices);
  out.evidence = lists_evidence(page, rows);
  return out;
}

// A receipt that prints no column heading: its rows, `unchecked` where its arithmetic does not
// vouch for them (table_receipt.h). PRICES are their unit prices where every row prints one, else
// their amounts.
Rows FieldFinder::receipt_items(std::optional<ReceiptRows> rows) const {
  Rows out;
  if (!rows) return out;
  const bool unit = std::all_of(rows->items.begin(), rows->items.end(),
                                [](const LineItem& i) { return i.unit_price.has_value(); });
  std::string descriptions, quantities, prices;
  for (const LineItem& i : rows->items) {
    append_joined(descriptions, " | ", i.description);
    if (i.quantity) append_joined(quantities, " | ", *i.quantity);
    append_joined(prices, " | ", *(unit ? i.unit_price : i.amount));
  }
  out.unchecked = !rows->sums && checked_rows(rows->items) < rows->items.size();
  out.items = std::move(rows->items), out.columned = false, out.unplaced = !unit && rows->unplaced;
  out.lists["DESCRIPTIONS"] = descriptions, out.lists["PRICES"] = prices;
  if (!quantities.empty()) out.lists["QUANTITIES"] = quantities;
  out.evidence = lists_evidence(page, rows->lines);
  return out;
}

// The row as a LineItem: the item's description, quantity and price (the unit price's column, or
// the amount's), and the row's other cells as their columns print them.
LineItem FieldFinder::line_item(const TableRow& row, const ItemRow& item, bool unit_prices) const {
  const auto cell = [&](Column c) -> std::optional<std::string> {
    const auto it = row.cells.find(c);
    if (it == row.cells.end()) return std::nullopt;
    if (c == Column::kDescription) return clean_text(it->second);
    if (c == Column::kDate) {  // without a stop OCR reads after it ("27/09.", "17 Jun.")
      std::string date = clean_text(it->second);
      while (!date.empty() && (date.back() == '.' || date.back() == ',')) date.pop_back();
      return date;
    }
    const auto a = money(it->second, false);
    if (!a) return std::nullopt;
    // With its sign as printed: "-45.00", "(45.00)", "45.00-", "1,234.56 DR" are negative.
    // (Appended to a "-", not prepended: GCC 12 warns, wrongly, of an overlapping copy.)
    const std::string amount = format_amount(a->cents, a->currency);
    return negative_printed(it->second) && a->cents != 0 ? std::string("-").append(amount) : amount;
  };
  LineItem out;
  out.description = item.description, out.quantity = item.quantity, out.box = row.box;
  out.unit_price = cell(Column::kUnitPrice), out.amount = cell(Column::kAmount);
  out.date = cell(Column::kDate), out.debit = cell(Column::kDebit);
  out.credit = cell(Column::kCredit), out.balance = cell(Column::kBalance);
  // A price read from the line's right end (item_row) is the column's the table names.
  if (item.price && !out.unit_price && !out.amount && !out.debit && !out.credit)
    (unit_prices ? out.unit_price : out.amount) = item.price;
  return out;
}

bool doubted(const Rows& rows, const std::string& list) {
  if (rows.transactions) return false;  // a statement's rows: their balances check them
  if (rows.unchecked) return true;
  // A row named as a receipt's summary ("Total Qty"): no item, so no list of the rows is right.
  if (std::any_of(rows.items.begin(), rows.items.end(),
                  [](const LineItem& i) { return summary_line(i.description); }))
    return true;
  if (list == "DESCRIPTIONS") return figures_in_names(rows.items);
  const auto found = rows.lists.find(list);
  // A heading's rows: the column read says whether PRICES are unit prices or amounts.
  if (list != "PRICES" || rows.columned || found == rows.lists.end()) return false;
  const auto priced = [](const LineItem& i) { return i.unit_price.has_value(); };
  const bool counted = std::any_of(rows.items.begin(), rows.items.end(), [](const LineItem& i) {
    return i.quantity && std::strtod(i.quantity->c_str(), nullptr) != 1.0;
  });
  return std::none_of(rows.items.begin(), rows.items.end(), priced) &&
         prices_are_amounts(rows.items, found->second) && (counted || rows.unplaced);
}

}  // namespace docsift::ocr::detail
