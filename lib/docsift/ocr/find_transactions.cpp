// A statement's transactions: each row's signed amount, the signs and dropped figures its running
// balances put right, and the balance check (field_finder.h).
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/field_finder.h"

namespace docsift::ocr::detail {

namespace {

// An amount as printed with its sign, in cents.
long long signed_cents(const std::string& printed, const std::string& amount) {
  const long long cents = amount_cents(amount).value_or(0);
  return negative_printed(printed) ? -cents : cents;
}

}  // namespace

std::optional<BalanceCheck> FieldFinder::balance_check(const Rows& rows) const {
  const auto open = found.find("OPENING_BALANCE"), close = found.find("CLOSING_BALANCE");
  const std::vector<long long>& amounts = rows.amounts;
  if (!rows.transactions || amounts.empty() || open == found.end() || close == found.end())
    return std::nullopt;
  const long long opening = signed_cents(open->second.value, open->second.value),
                  closing = signed_cents(close->second.value, close->second.value);
  long long sum = opening;
  for (const long long a : amounts) sum += a;
  // To the cent: a statement's amounts are never rounded, so a cent off is a misprint or a misread.
  if (sum == closing) return BalanceCheck{"sum", "", true};
  if (amounts.back() == closing) return BalanceCheck{"running", "", std::nullopt};
  // By how much, for review.csv's check and the report (journal/page_arithmetic.h).
  char off[32];
  std::snprintf(off, sizeof off, "%.2f", static_cast<double>(sum - closing) / 100.0);
  return BalanceCheck{false, off, false};
}

void FieldFinder::take_balance_check(const std::optional<BalanceCheck>& check,
                                     nlohmann::json& checks) {
  if (!check) return;
  checks["balance"] = check->result;
  if (!check->off.empty()) checks["balance_off"] = check->off;
  // What the check ties together: the transactions and both balances, vouched for when they add
  // up (take_second_reading keeps them over a second reading whose checks do not vouch for its
  // own), contradicted when they do not.
  if (!check->vouches) return;
  for (const char* field : {"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    if (const auto it = found.find(field); it != found.end())
      (*check->vouches ? it->second.noted.vouched : it->second.noted.contradicted) = true;
  }
}

// A transaction's amount, signed, for balance_check: its amount column as printed ("-$45.00",
// "45.00-", "(45.00)" are debits), else its credit less its debit, else the line's last word.
std::optional<long long> FieldFinder::row_amount(const TableRow& row, const ItemRow& item) const {
  const auto cell = [&](Column c) {
    const auto it = row.cells.find(c);
    return it == row.cells.end() ? std::string() : it->second;
  };
  const auto cents = [&](Column c) -> std::optional<long long> {
    const auto a = money(cell(c), false);
    return a ? std::optional(a->cents) : std::nullopt;
  };
  if (const auto a = money(cell(Column::kAmount), false))
    return signed_cents(cell(Column::kAmount), format_amount(a->cents, a->currency));
  if (const auto credit = cents(Column::kCredit), debit = cents(Column::kDebit); credit || debit)
    return credit.value_or(0) - debit.value_or(0);
  if (!item.price) return std::nullopt;
  // Its last word, with a minus read as a word of its own before it ("Fuel - $329.43").
  const auto& words = page.lines[row.lines.front()].words;
  const bool minus = words.size() >= 2 && words[words.size() - 2].text == "-";
  return signed_cents((minus ? "-" : "") + words.back().text, *item.price);
}

void FieldFinder::amounts_from_balances(std::vector<LineItem>& items,
                                        std::vector<std::optional<long long>>& amounts,
                                        bool split) const {
  const auto open = found.find("OPENING_BALANCE");
  std::optional<long long> before;
  if (open != found.end()) before = signed_cents(open->second.value, open->second.value);
  for (std::size_t k = 0; k < amounts.size() && k < items.size(); ++k) {
    LineItem& item = items[k];
    const std::optional<long long> balance =
        item.balance ? std::optional(signed_cents(*item.balance, *item.balance)) : std::nullopt;
    auto& a = amounts[k];
    if (before && balance && a && *a != 0 && *before + *a != *balance && *before - *a == *balance) {
      a = -*a;
      if (item.amount) {
        item.amount = item.amount->front() == '-' ? item.amount->substr(1) : "-" + *item.amount;
      } else {
        std::swap(item.debit, item.credit);
      }
    } else if (before && balance && !a && *balance != *before && !item.amount && !item.debit &&
               !item.credit) {
      // No figure read in the row's amount cells (OCR dropped the word) between two balances:
      // the balances say what moved, as a bookkeeper would read it. The row's own check then
      // proves nothing (row_checks.cpp), so the row is marked.
      a = *balance - *before;
      const auto printed = money(*item.balance, false);
      const std::string cell = format_amount(std::llabs(*a), printed ? printed->currency : "");
      if (!split)
        item.amount = (*a < 0 ? "-" : "") + cell;
      else
        (*a < 0 ? item.debit : item.credit) = cell;
      item.from_balances = true;
    }
    before = balance;
  }
}

}  // namespace docsift::ocr::detail
