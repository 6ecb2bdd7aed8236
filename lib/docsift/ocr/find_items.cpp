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
  const bool debit = printed.find('-') != std::string::npos || printed.find('(') != std::string::npos;
  return debit ? -cents : cents;
}

}  // namespace

void FieldFinder::balance_check(nlohmann::json& checks) {
  const auto open = found.find("OPENING_BALANCE"), close = found.find("CLOSING_BALANCE");
  if (!statement || row_amounts.empty() || open == found.end() || close == found.end()) return;
  const long long opening = signed_cents(open->second, open->second), closing = signed_cents(close->second, close->second);
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
  std::optional<std::size_t> table;
  for (std::size_t i = 0; i < page.lines.size() && !table; ++i) {
    const std::string l = lowercase(page.lines[i].text());
    if (has_any(l, rules.table_description) &&
        (has_any(l, rules.table_quantity) || has_any(l, rules.table_price))) {
      table = i;
    }
  }
  if (table) {
    std::vector<std::string> descriptions, quantities, prices;
    std::vector<std::size_t> rows;  // the lines read as items: the lists' evidence
    const int block = page.lines[*table].block;
    const bool alone = *table + 1 < page.lines.size() && page.lines[*table + 1].block != block;
    for (std::size_t i = *table + 1; i < page.lines.size(); ++i) {
      if (page.lines[i].block != block && !(alone && page.lines[i].block == block + 1)) break;
      if (summary[i]) break;
      const auto row = item_row(i);
      if (!row) continue;
      descriptions.push_back(row->description);
      if (row->quantity) quantities.push_back(*row->quantity);
      if (row->price) prices.push_back(*row->price);
      rows.push_back(i);
      if (statement && row->price && !page.lines[i].words.empty()) {
        // Its last word, with a minus read as a word of its own before it ("Fuel - $329.43").
        const auto& words = page.lines[i].words;
        const bool minus = words.size() >= 2 && words[words.size() - 2].text == "-";
        row_amounts.push_back(signed_cents((minus ? "-" : "") + words.back().text, *row->price));
      }
    }
    const auto joined = [](const std::vector<std::string>& items) {
      std::string s;
      for (const auto& item : items) s += (s.empty() ? "" : " | ") + item;
      return s;
    };
    if (!descriptions.empty()) found["DESCRIPTIONS"] = joined(descriptions);
    if (!statement && !quantities.empty()) found["QUANTITIES"] = joined(quantities);
    if (!statement && !prices.empty()) found["PRICES"] = joined(prices);
    // The lists' evidence: every word of the rows they were read from, under the table's header.
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
    for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"}) {
      if (found.count(list)) evidence[list] = e;
    }
  }
}

}  // namespace docsift::ocr::detail
