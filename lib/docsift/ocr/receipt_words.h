// A receipt's words as figures: amounts with cents, quantities, the tax codes printed after them,
// and what OCR does to them that the line itself can undo (docs/ocr.md, "Line items": a receipt
// without a heading). Used by the reader of a receipt's rows (table_receipt.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace docsift::ocr::receipt_words {

// An amount with cents as a receipt prints it ("RM13.50", "9,90", "5.90SR"): in cents, or none.
std::optional<long long> cents_of(const std::string& token);
// Cents as a plain figure: 1350 → "13.50", -41 → "-0.41".
std::string plain(long long cents);
// A quantity as receipts print it ("2", "1.00", "*4", "1.00PCS"): its number, or none.
std::optional<std::string> quantity_of(const std::string& token);
// A unit printed after a quantity ("pcs", "EA", "kg"; "pes" as OCR reads "pcs").
bool unit_word(const std::string& token);
// A tax code or a currency printed after the amount ("SR", "ZRL", "*S", "T", "RM").
bool trailing_code(const std::string& token);
// A mark OCR read from a rule or a speck: no letter or digit ("|", "§", ":").
bool mark(const std::string& w);
// The times sign between a quantity and its price: "x", "X" or "*".
bool is_times(const std::string& t);
// A word of a name: two letters or more and no digit.
bool name_word(const std::string& t);
// Whether quantity `q` times unit price `p` is `a` cents, to a cent.
bool checks(const std::optional<std::string>& q, const std::optional<std::string>& p, long long a);
// A price as a plain figure ("@2.50" → "2.50"), or none.
std::optional<std::string> price_of(std::string s);
// A quantity and a unit price that no rule of the line's order placed, and where they are.
struct Pair {
  std::string quantity, unit_price;
  std::size_t first = 0;  // the position of the first of the two in the line's words
};
// The pair among the words t[0, k) that starts furthest right, at most four words apart in
// either order with OCR's specks between them ("O.C. WHITE 2.13: 3.8 @ 3" before 6.39: 3 x 2.13),
// whose product is `a` cents to the cent: a whole quantity of 2 or more (1 x the amount says
// nothing of which word is its price), a price with cents (a mark OCR read after it dropped).
// None where no pair checks.
std::optional<Pair> checked_pair(const std::vector<std::string>& t, std::size_t k, long long a);
// "1X" (a quantity and the times sign read as one word): the quantity.
std::optional<std::string> times_quantity(const std::string& t);
// Figures whose point OCR lost, given back where the line's other figures give it
// (receipt_words.cpp).
void restore_point(std::vector<std::string>& t);
// One line's words with what OCR did to its figures undone and what is printed after its amount
// (marks, tax codes) dropped (receipt_words.cpp).
void mend(std::vector<std::string>& t);

}  // namespace docsift::ocr::receipt_words
