// What a page's values say of each other, as evidence for the confidences (rules.h: Evidence's
// `vouched` and `contradicted`; docs/confidence.md, "The evidence"): checks a person would make
// before accepting a value, run on the page's final values just before they are calibrated.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"

namespace docsift::ocr {

// Marks the evidence of the fields a check ties together; a field without evidence (not found)
// is left alone. The checks:
// - amounts: SUBTOTAL + GST = TOTAL to the cent (one cent of rounding); GST one eleventh of TOTAL
//   (Australia's 10 %); the line items' quantities × prices summing to SUBTOTAL (or TOTAL);
// - ids: an ABN's weighted mod-89 check digits;
// - dates: DUE_DATE not before INVOICE_DATE; a STATEMENT_PERIOD that runs forward, within a year;
// - lists: QUANTITIES, PRICES and DESCRIPTIONS with one count of items (two of them at least);
// - DOCUMENT_TYPE: a statement with a balance and no total, an invoice or receipt with a total
//   and no balance;
// - text: an e-mail address with one @ and a dotted domain; the payer's name, address or phone
//   the same as the seller's (only a contradiction, of both); a person's name or an address
//   that holds another field's label (`rules`' labels: "Acct", "Tel"), only a contradiction.
// A check that passes vouches for each value it ties; one that fails contradicts them.
void check_page(const std::map<std::string, std::string>& fields,
                std::map<std::string, Evidence>& evidence, const Rules& rules);

// What a table's rows come to (check_rows, below): `checked` rows print a quantity, a unit price
// and an amount, `off` of them an amount that is not the product (to a cent); and, where every row
// gives a figure (its amount, or its quantity × unit price) and the page a total, their `sum`.
struct TableCheck {
  std::size_t rows = 0;
  int checked = 0, off = 0;
  struct Sum {
    long long cents = 0, target = 0;  // what the rows come to, and the total held against it
    std::string against;              // the field that total is: SUBTOTAL or TOTAL
    std::string named;                // as the record names it: `against`, or "TOTAL less GST"
    bool products = false;            // made of quantities × unit prices
    bool prices = false;              // PRICES' figures went into it (unit prices or amounts)
    bool adds_up() const { return cents - target <= 1 && target - cents <= 1; }
  };
  std::optional<Sum> sum;
  // Whether arithmetic ties PRICES' figures to others: every product checked agrees, or a sum they
  // went into adds up (and no product misses). Such figures are not read again
  // (Engine::cross_read_prices).
  bool prices_checked() const;
};
TableCheck check_table(const std::vector<LineItem>& items,
                       const std::map<std::string, std::string>& fields);

// The table's rows (rules.h: Extraction::items) against themselves and the page: each row's
// quantity × unit price = its amount (to a cent), vouching for QUANTITIES and PRICES when every row
// that prints all three agrees and contradicting both when one does not; and, when every row prints
// an amount or a quantity and a unit price, what the rows come to (the amounts, else the products;
// the unit prices alone where no row prints a quantity, or where they and not the products make
// it) against SUBTOTAL (or TOTAL without one), vouching for DESCRIPTIONS and that total (and
// QUANTITIES and PRICES where products made it) or contradicting them. `checks` gets "table":
// {rows, products: {checked, off}, sum, against, difference} (docs/ocr.md, "Line items"), what a
// person sees of where a table breaks.
void check_rows(const std::vector<LineItem>& items,
                const std::map<std::string, std::string>& fields,
                std::map<std::string, Evidence>& evidence, nlohmann::json& checks);

// A row's quantity ("2", "2.5", "1,5") times its unit price, in cents: what its amount should be.
long long quantity_times(const std::string& quantity, long long unit_cents);

// A table row's evidence from the page's words whose centres lie in `box` (the row's): their
// Tesseract confidences (rules.h: Evidence's word_min and word_mean), `exact` on a PDF's text
// layer; `labelled` (the reader clears it for a receipt's rows read without columns); `parts`,
// per line of the row that prints words of `description` (the row's, as the finder wrote it), the
// box of those words, top to bottom: what the second recognizer reads again
// (Engine::cross_read_rows).
Evidence row_evidence(const Page& page, const Box& box, const std::string& description);

// The items of a list value, as written with " | " between them (spaces around each trimmed, empty
// ones left out).
std::vector<std::string> items_of(const std::string& value);
// Whether PRICES (`prices`, items joined by " | ") is the rows' printed amounts, one per row (a
// receipt's rows with no unit price: find_items.cpp, receipt_items).
bool prices_are_amounts(const std::vector<LineItem>& items, const std::string& prices);

// Each row's LineItem::price_box, where `prices` (PRICES as read) is its rows' unit prices, or
// their amounts, joined, every row with one: the word in the row's box whose amount is that cell's
// (the rightmost of them), none where no one word holds it ("$ 38.35" in two words).
void mark_price_words(const Page& page, std::vector<LineItem>& items, const std::string& prices,
                      const Lexicon& lexicon);

// Each row's `vouched`, `contradicted` and `sums_agree` (docs/confidence.md, "Rows"): its own
// check (quantity × unit price = amount to a cent; a statement's balance = the balance before it,
// the opening balance for the first, moved by its amount) vouches for it or contradicts it; the
// table's (`checks`' "table" difference within a cent, or "balance": "sum") sets sums_agree; a
// table that does not add up contradicts no row (it does not say which row is wrong).
void mark_rows(std::vector<LineItem>& items, const std::map<std::string, std::string>& fields,
               const nlohmann::json& checks);

// A field the rules left N/A: whether the page shows one of its labels (`rules`' labels, matched as
// the rules match them, or the last two words of one of three words or more), a run shaped like its
// value that did not pass as one (an ABN's 11 digits without its check digits, or the start of its
// grouping; another kind's value as its parser reads it), signs that the page is from abroad
// (`rules`' regions other than Australia, amounts mostly in another currency than dollars), and
// signs that it is Australian (`rules.home`: "QLD 4000", ".com.au", "Pty Ltd", "Australia"):
// Evidence's `label_seen`, `shape_seen`, `abroad` and `home`, from which the calibration's `absent`
// models give the probability that the page prints no such value (calibration.h). Nothing of a
// field with no label rule.
Evidence absence_of(const Page& page, const Rules& rules, const std::string& field);

}  // namespace docsift::ocr
