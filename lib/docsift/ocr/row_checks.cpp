// Each table row's own evidence (page_checks.h: row_evidence, mark_rows; docs/confidence.md,
// "Rows"): what a reviewer would look at to trust one row without reading the whole table.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "docsift/ocr/known_names.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {
namespace {

// Whether the centre of `w` lies in `box`: a row's words, as the row's own evidence counts them.
bool centred_in(const Word& w, const Box& box) {
  const int x = (w.box.left + w.box.right) / 2, y = w.box.center_y();
  return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
}

// A cell as the field finder writes an amount ("-45.00" for a debit), in cents with its sign.
std::optional<long long> signed_cell(const std::optional<std::string>& cell) {
  if (!cell) return std::nullopt;
  const auto cents = amount_cents(*cell);
  if (!cents) return std::nullopt;
  return !cell->empty() && cell->front() == '-' ? -*cents : *cents;
}

// What a transaction moves the balance by: its amount, else its credit less its debit.
std::optional<long long> movement(const LineItem& item) {
  if (const auto a = signed_cell(item.amount)) return a;
  const auto credit = signed_cell(item.credit), debit = signed_cell(item.debit);
  if (!credit && !debit) return std::nullopt;
  return credit.value_or(0) - std::llabs(debit.value_or(0));
}

// The row's own check: its quantity × unit price against its amount, or its balance against the
// balance before it (the opening balance for the first row) moved by its amount. nullopt when
// the row prints too little for either.
std::optional<bool> own_check(const LineItem& item, std::optional<long long> before) {
  const auto amount = signed_cell(item.amount), unit = signed_cell(item.unit_price);
  if (item.quantity && unit && amount)
    return std::llabs(quantity_times(*item.quantity, *unit) - *amount) <= 1;
  const auto balance = signed_cell(item.balance), moved = movement(item);
  if (before && balance && moved) return *before + *moved == *balance;
  return std::nullopt;
}

}  // namespace

long long quantity_times(const std::string& quantity, long long unit_cents) {
  std::string q = quantity;
  for (char& c : q) c = c == ',' ? '.' : c;
  return std::llround(std::strtod(q.c_str(), nullptr) * static_cast<double>(unit_cents));
}

Evidence row_evidence(const Page& page, const Box& box, const std::string& description) {
  Evidence e;
  e.labelled = true;
  e.exact = page.exact;
  e.box = box;
  double sum = 0;
  int count = 0;
  // The description's words, as clean_text left them: a word of the row is one of them where its
  // letters and digits are one of theirs (not a quantity's "1" beside "1kg").
  std::set<std::string> said;
  for (std::size_t at = 0; at < description.size();) {
    const std::size_t space = std::min(description.find(' ', at), description.size());
    if (std::string key = name_key(description.substr(at, space - at)); !key.empty())
      said.insert(std::move(key));
    at = space + 1;
  }
  for (const Line& line : page.lines) {
    std::optional<Box> part;  // the description's words on this line: one crop to read again
    for (const Word& w : line.words) {
      if (!centred_in(w, box)) continue;
      e.word_min = std::min(e.word_min, static_cast<double>(w.confidence));
      sum += w.confidence;
      ++count;
      if (said.count(name_key(w.text))) part = part ? part->with(w.box) : w.box;
    }
    if (part) e.parts.push_back(*part);
  }
  if (count > 0) e.word_mean = sum / count;
  return e;
}

void mark_price_words(const Page& page, std::vector<LineItem>& items, const std::string& prices,
                      const Lexicon& lexicon) {
  for (const auto cell : {&LineItem::unit_price, &LineItem::amount}) {
    std::string joined;
    const bool every = std::all_of(items.begin(), items.end(), [&](const LineItem& item) {
      if (!(item.*cell)) return false;
      append_joined(joined, " | ", *(item.*cell));
      return true;
    });
    if (!every || joined != prices) continue;
    for (LineItem& item : items) {
      const std::optional<long long> cents = amount_cents(*(item.*cell));
      for (const Line& line : page.lines) {
        for (const Word& w : line.words) {
          if (!centred_in(w, item.box)) continue;
          for (const Amount& a : find_amounts(w.text, lexicon, true)) {
            if (cents && a.cents == std::llabs(*cents) &&
                (!item.price_box || w.box.left > item.price_box->left))
              item.price_box = w.box;
          }
        }
      }
    }
    return;
  }
}

void mark_rows(std::vector<LineItem>& items, const std::map<std::string, std::string>& fields,
               const nlohmann::json& checks) {
  // The whole table's check: its rows sum to the subtotal (or total), or a statement's
  // transactions take the opening balance to the closing one.
  // A receipt's rows that neither add up under them nor each check (`rows_unchecked`) can meet a
  // figure read elsewhere by chance: no sum of theirs vouches (check_rows).
  std::optional<bool> table;
  const bool unchecked = checks.is_object() && checks.value("rows_unchecked", false);
  if (const auto t = checks.find("table");
      !unchecked && t != checks.end() && t->contains("difference")) {
    const auto off = amount_cents(t->at("difference").get<std::string>());
    table = off && *off <= 1;
  }
  if (const auto b = checks.find("balance"); b != checks.end()) {
    if (b->is_string() && *b == "sum") table = true;
    if (b->is_boolean()) table = b->get<bool>();
  }
  std::optional<long long> before;
  if (const auto open = fields.find("OPENING_BALANCE");
      open != fields.end() && open->second != "N/A")
    before = signed_cell(open->second);
  for (LineItem& item : items) {
    // An amount taken from the balances (find_transactions.cpp) agrees with them by construction.
    const std::optional<bool> own = item.from_balances ? std::nullopt : own_check(item, before);
    before = signed_cell(item.balance);
    // The row's own check vouches or contradicts; the table's sum is evidence of its own
    // (sums_agree). A table that does not add up contradicts no row: it says that one of its rows
    // or its totals is wrong (a GST read from a row, a row missed), not which.
    item.evidence.vouched = own == true;
    item.evidence.contradicted = own == false;
    item.evidence.sums_agree = table == true;
  }
}

}  // namespace docsift::ocr
