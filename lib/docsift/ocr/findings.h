// What the OCR rules' steps return (field_finder.h): each step is a const function of the page's
// facts (page_facts.h) and of the steps' results before it, and returns one of these; the field
// finder's table of steps (find_steps.cpp) alone writes them (docs/ocr.md, "Rules"). ocr/ only.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/finder.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr::detail {

// One field a step found: its value, the segment it was read from, what the step noted of it, and
// the key of engine.checks that says how it was found.
struct Finding {
  std::string field, value;
  std::size_t at = 0;
  Evidence noted;
  const char* check = nullptr;
};

// A labelled amount of TOTAL or of a payment line: its label's strength (rules.h: LabelRule).
struct Candidate {
  Amount amount;
  int strength;
  std::size_t segment;
  bool fuzzy = false;  // its label matched only with an edit
};

// Where a TOTAL candidate came from: a total's label, a labelled amount's misread digit repaired,
// what was paid, a card's charge, subtotal + tax printed below the subtotal, the subtotal, or an
// amount no label names (Page).
enum class TotalSource { Label, Repaired, Payment, Card, Sum, Subtotal, Page };
struct TotalOption {
  Candidate c;
  TotalSource source;
};

// What was paid, as the payment lines say: tendered − change, or a card's charge with no change.
struct Paid {
  std::optional<long long> paid;
  long long tendered_exact = -1;  // -1: none
  bool was_paid(long long v) const { return v == paid.value_or(-1) || v == tendered_exact; }
};

// The labelled amounts of TOTAL and of the payment lines, top to bottom.
struct Payments {
  std::vector<Candidate> totals, tendered, change;
  Paid paid() const;
  // The tendered figure itself: it agrees with itself whenever the change is nil.
  bool is_tendered(std::size_t segment) const {
    return !tendered.empty() && segment == tendered.back().segment;
  }
  bool on_payment_line(std::size_t segment) const;  // a tendered or change figure's
};

// What the labels read: each labelled field's first value, the payment lines' amounts, and the
// segments of labelled dates and of their labels (whose dates are not the invoice's).
struct Labelled {
  std::vector<Finding> fields;
  Payments payments;
  std::vector<std::pair<std::size_t, std::size_t>> other_dates;
};

// What the TOTAL step chose. Nothing on a statement or a page with no candidate but the sums.
struct TotalChoice {
  std::vector<long long> sums;  // the printed sums: Extraction::sums
  std::optional<TotalOption> winner;
  // A total read on the page (or repaired) that a printed sum agrees with, or found as
  // subtotal + tax: vouched for by figures read apart from it.
  bool vouched = false;
  Evidence evidence;
  std::vector<Ranked> ranked;   // every candidate as the trained finder scored it
  const char* check = nullptr;  // engine.checks' key for a winner no label read
};

// A table's rows read as line items, or a statement's transactions.
struct Rows {
  std::vector<LineItem> items;
  // The lists they make (DESCRIPTIONS, QUANTITIES, PRICES: each row's, joined by " | "), with
  // their evidence: every word of the rows they were read from.
  std::map<std::string, std::string> lists;
  Evidence evidence;
  // The rows were read in a table's columns, not by the receipt reader (table_receipt.h): a row's
  // evidence is `labelled` then (docs/confidence.md, "Rows").
  bool columned = true;
  bool transactions = false;  // the table lists a statement's transactions
  // Each transaction's amount, signed, in cents (the balance check), where one was read.
  std::vector<long long> amounts;
  // The items' figures OCR misread (TableRow::Misread), for a second recognizer to read again:
  // QUANTITIES for a quantity's, PRICES for a price's or an amount's.
  std::vector<WordRun> misread;
  // A receipt's row printed a figure none of its cells holds (ReceiptRows::unplaced).
  bool unplaced = false;
  // A receipt's rows neither add up to a figure printed under them nor each check (quantity times
  // unit price is the amount): a figure of them misread, which no list of them can be trusted with.
  bool unchecked = false;
};

// Whether the rows themselves say that `list` was misread, which contradicts it
// (docs/confidence.md, "Rows"): any list of a receipt's rows that are `unchecked`, any list where
// a row is named as a receipt's summary ("Total Qty", table_receipt.h), DESCRIPTIONS where a name
// holds a figure with cents (the row's figures read into it), or a receipt's PRICES made of amounts
// (no heading read) where a row's quantity is not 1 or its line prints a figure no cell holds (the
// unit price, which is then not its amount). Never a statement's.
bool doubted(const Rows& rows, const std::string& list);

// The segment and block of the payer's (or account holder's) name, where a label read it.
struct Payer {
  std::optional<std::size_t> at;
  std::optional<int> block;
};

// Where the seller's name was read (none for a letter's sender line, whose block is the
// recipient's address window), and what the SUPPLIER step found: the name, a sender line's address.
struct Seller {
  std::optional<std::size_t> at;
  std::optional<int> block;
  std::vector<Finding> found;
};

// BUSINESS_ADDRESS under the seller's name, and the segments it was read from (its evidence's
// words and parts).
struct Address {
  std::optional<Finding> finding;
  std::vector<std::size_t> segments;
};

// A statement's balance check: checks.balance, and checks.balance_off where they disagree (by how
// much); the fields it ties together vouched for (true) or contradicted (false), or neither.
struct BalanceCheck {
  nlohmann::json result;
  std::string off;
  std::optional<bool> vouches;
};

}  // namespace docsift::ocr::detail
