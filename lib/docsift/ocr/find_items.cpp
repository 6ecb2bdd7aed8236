// Line items: a table's rows under its header. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <set>

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
  for (const auto& w : words) description += (description.empty() ? "" : " ") + w;
  description = clean_text(description);
  if (description.empty() || !has_letters(description)) return std::nullopt;
  return ItemRow{description, quantity, price};
}

namespace {

// An amount as printed with its sign: "-$45.00", "45.00-" and "(45.00)" are debits.
long long signed_cents(const std::string& printed, const std::string& amount) {
  const long long cents = amount_cents(amount).value_or(0);
  const bool debit =
      printed.find('-') != std::string::npos || printed.find('(') != std::string::npos;
  return debit ? -cents : cents;
}

}  // namespace

void FieldFinder::balance_check(nlohmann::json& checks) {
  const auto open = found.find("OPENING_BALANCE"), close = found.find("CLOSING_BALANCE");
  if (!statement || row_amounts.empty() || open == found.end() || close == found.end()) return;
  const long long opening = signed_cents(open->second, open->second),
                  closing = signed_cents(close->second, close->second);
  long long sum = opening;
  for (const long long a : row_amounts) sum += a;
  const auto list = evidence.find("DESCRIPTIONS");
  if (std::llabs(sum - closing) <= 1) {
    checks["balance"] = "sum";
    if (list != evidence.end()) list->second.vouched = true;
  } else if (std::llabs(row_amounts.back() - closing) <= 1) {
    checks["balance"] = "running";
  } else {
    checks["balance"] = false;
    if (list != evidence.end()) list->second.contradicted = true;
  }
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
Evidence rows_evidence(const Page& page, const std::vector<std::size_t>& rows) {
  Evidence e;
  e.labelled = true;
  double sum = 0;
  int count = 0;
  for (const std::size_t i : rows) {
    for (const Word& w : page.lines[i].words) {
      if (count == 0) e.box = w.box;
      e.box = e.box.with(w.box);
      e.word_min = std::min(e.word_min, static_cast<double>(w.confidence));
      sum += w.confidence;
      ++count;
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
  // A header whose quantity OCR misread ("Qtée"): a whole number ending the description, before
  // the price, is the quantity, as a line read from the right has it.
  if (!row.cells.count(Column::kQuantity) && price) {
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

void FieldFinder::line_items() {
  // A table ends at a line that starts with a summary label (an amount or a date: "Subtotal",
  // "Closing balance"); other labels inside a row ("Phone bill") are descriptions.
  std::vector<bool> summary(page.lines.size(), false);
  for (const auto& seg : r) {
    if (!seg.hits.empty() && seg.hits.front().at == 0) {
      const std::string& kind = rules.fields[seg.hits.front().rule].kind;
      if (kind == "amount" || kind == "date" || kind == "period") summary[seg.line] = true;
    }
  }
  std::optional<std::size_t> header;
  std::vector<TableColumn> columns;
  for (std::size_t i = 0; i < page.lines.size() && !header; ++i) {
    if (auto named = table_header(page.lines[i], rules.table))
      header = i, columns = std::move(*named);
  }
  if (!header) return;
  // The table's lines: the header's block, or the next when the header stands alone, up to a
  // summary.
  const int block = page.lines[*header].block;
  const bool alone = *header + 1 < page.lines.size() && page.lines[*header + 1].block != block;
  std::size_t end = *header + 1;
  while (end < page.lines.size() &&
         (page.lines[end].block == block || (alone && page.lines[end].block == block + 1)) &&
         !summary[end])
    ++end;
  // Specks: short words of little confidence with fewer than two letters or digits ("E)", "z"; not
  // "A4").
  const auto kept = [](const Word& w) {
    const auto letters = std::count_if(w.text.begin(), w.text.end(), word_char);
    const bool marks = letters > 0 || w.text == "&" || w.text == "-" || w.text == "$" ||
                       w.text == "€" || w.text == "£";
    return marks && !(w.text.size() <= 3 && w.confidence < kSpeckConfidence && letters < 2);
  };
  const auto has = [&](Column c) {
    return std::any_of(columns.begin(), columns.end(),
                       [&](const TableColumn& t) { return t.kind == c; });
  };
  std::vector<std::string> descriptions, quantities, prices;
  std::vector<std::size_t> rows;  // the lines read as items: the lists' evidence
  for (const TableRow& row : table_rows(page, *header + 1, end, columns, rules.lexicon, kept)) {
    std::optional<ItemRow> item = table_item(row, has(Column::kUnitPrice));
    // A row whose cells gave neither a quantity nor a price (a header misread, so a price sat in
    // the quantity's column; a receipt's "RM12.00" glued to a word): its own line, read from the
    // right.
    if (item && !item->price && !item->quantity) item = item_row(row.lines.front());
    if (!item) continue;
    items.push_back(line_item(row, *item, has(Column::kUnitPrice)));
    descriptions.push_back(item->description);
    if (item->quantity) quantities.push_back(*item->quantity);
    if (item->price) prices.push_back(*item->price);
    rows.insert(rows.end(), row.lines.begin(), row.lines.end());
    if (statement) row_amounts_of(row, *item);
  }
  const auto joined = [](const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : " | ") + item;
    return s;
  };
  if (!descriptions.empty()) found["DESCRIPTIONS"] = joined(descriptions);
  // A table of transactions (debits, credits or balances) has no line items' quantities or prices,
  // whatever the page's heading was read as.
  const bool items =
      !statement && !has(Column::kDebit) && !has(Column::kCredit) && !has(Column::kBalance);
  if (items && !quantities.empty()) found["QUANTITIES"] = joined(quantities);
  if (items && !prices.empty()) found["PRICES"] = joined(prices);
  const Evidence e = rows_evidence(page, rows);
  for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"}) {
    if (found.count(list)) evidence[list] = e;
  }
}

// The row as a LineItem: the item's description, quantity and price (the unit price's column, or
// the amount's), and the row's other cells as their columns print them.
LineItem FieldFinder::line_item(const TableRow& row, const ItemRow& item, bool unit_prices) const {
  const auto cell = [&](Column c) -> std::optional<std::string> {
    const auto it = row.cells.find(c);
    if (it == row.cells.end()) return std::nullopt;
    if (c == Column::kDate || c == Column::kDescription) return clean_text(it->second);
    const auto a = money(it->second, false);
    return a ? std::optional(format_amount(a->cents, a->currency)) : std::nullopt;
  };
  LineItem out{item.description,      item.quantity,          cell(Column::kUnitPrice),
               cell(Column::kAmount), cell(Column::kDate),    cell(Column::kDebit),
               cell(Column::kCredit), cell(Column::kBalance), row.box};
  // A price read from the line's right end (item_row) is the column's the table names.
  if (item.price && !out.unit_price && !out.amount && !out.debit && !out.credit)
    (unit_prices ? out.unit_price : out.amount) = item.price;
  return out;
}

// A statement row's amount, signed, for balance_check: its amount column as printed ("-$45.00",
// "45.00-", "(45.00)" are debits), else its credit less its debit, else the line's last word.
void FieldFinder::row_amounts_of(const TableRow& row, const ItemRow& item) {
  const auto cell = [&](Column c) {
    const auto it = row.cells.find(c);
    return it == row.cells.end() ? std::string() : it->second;
  };
  const auto cents = [&](Column c) -> std::optional<long long> {
    const auto a = money(cell(c), false);
    return a ? std::optional(a->cents) : std::nullopt;
  };
  if (const auto a = money(cell(Column::kAmount), false)) {
    row_amounts.push_back(
        signed_cents(cell(Column::kAmount), format_amount(a->cents, a->currency)));
  } else if (const auto credit = cents(Column::kCredit), debit = cents(Column::kDebit);
             credit || debit) {
    row_amounts.push_back(credit.value_or(0) - debit.value_or(0));
  } else if (item.price) {
    // Its last word, with a minus read as a word of its own before it ("Fuel - $329.43").
    const auto& words = page.lines[row.lines.front()].words;
    const bool minus = words.size() >= 2 && words[words.size() - 2].text == "-";
    row_amounts.push_back(signed_cents((minus ? "-" : "") + words.back().text, *item.price));
  }
}

}  // namespace docsift::ocr::detail
