// A table read from a page's word boxes (docs/ocr.md, "Tables"): its header row names the columns
// by their words (description, quantity, unit price, amount; date, debit, credit, balance), each
// column spans its header's words, and each line below is cut into those columns by where its
// words stand. Geometry only: where the table ends (a summary label, another block) and what its
// cells mean is the field finder's (field_finder.h, line_items).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/names.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

enum class Column {
  kDescription,
  kQuantity,
  kUnitPrice,
  kAmount,
  kDate,
  kDebit,
  kCredit,
  kBalance
};
inline constexpr Names<Column, 8> kColumnNames{{{Column::kDescription, "description"},
                                                {Column::kQuantity, "quantity"},
                                                {Column::kUnitPrice, "unit_price"},
                                                {Column::kAmount, "amount"},
                                                {Column::kDate, "date"},
                                                {Column::kDebit, "debit"},
                                                {Column::kCredit, "credit"},
                                                {Column::kBalance, "balance"}}};
constexpr std::string_view to_string(Column c) { return name_of(kColumnNames, c); }

// Each column's header words, lower case, as ocr-rules.yaml's `table:` lists them (a phrase of up
// to three words: "unit price", "prix unitaire").
using TableWords = std::vector<std::pair<Column, std::vector<std::string>>>;

struct TableColumn {
  Column kind = Column::kDescription;
  int left = 0, right = 0;  // its header's words, in the page's pixels
};

struct TableRow {
  std::map<Column, std::string> cells;  // each column's words on the row, joined by spaces
  std::vector<std::size_t>
      lines;  // the page's lines it was read from: its own, then its description's wraps
  Box box;
  // A word of its own line that is no figure, standing where a column of figures it has none in
  // ends, right of where the figures start: OCR's misreading of the figure ("sl" for a quantity's
  // 1; a quantity's of 3 letters at most, another column's with a digit). Not the description's:
  // its column and where it is (page.lines[line].words[word]), for a second recognizer to read
  // again (engine.h, reread).
  struct Misread {
    Column column = Column::kQuantity;
    std::size_t line = 0, word = 0;
  };
  std::vector<Misread> misread;
};

// The columns `line` names as a table's header, left to right: a description column and at least
// one other. Each phrase is matched whole, the longest first; words no column names ("#", "Tax")
// are passed over. None when the line is no header.
std::optional<std::vector<TableColumn>> table_header(const Line& line, const TableWords& words);

// The rows of page.lines[first, end) under `columns`. Each line is cut from its ends: a date's
// words first (when the first column is a date), figures last, at most one per column of figures
// (a sign or currency printed apart joins its number, a balance's side after it, "1,234.56 CR";
// a percentage, a tax rate, is passed over; a bare number left of the columns of figures, "Coles
// 0862", ends the description), the description between, without the marks OCR reads from a
// ruled table's lines around its words ("|Rent", "$702.65]"). A row with a figure in every column
// fills them in order; one with fewer puts each where its right edge is nearest, in order, against
// where the full rows' figures end (the header's right edges when no row is full): a header need
// not stand over its column. A line of words alone no more than a line's height under a row
// continues its description. `lexicon`'s month names are a date's words; `kept(word)` says whether
// a word counts at all (specks do not).
std::vector<TableRow> table_rows(const Page& page, std::size_t first, std::size_t end,
                                 const std::vector<TableColumn>& columns, const Lexicon& lexicon,
                                 const std::function<bool(const Word&)>& kept);

// What a line says of the table above it: nothing; that the table ends there unless a row of it
// follows (a label that may begin a row: "Opening balance" over the transactions, a payment's
// "EFTPOS Coles" among them); that it ends there (a sum's label: Subtotal, GST, Total, Closing
// balance).
enum class Stop { kNo, kUnlessRowFollows, kYes };

// Where the table under the header page.lines[header] ends: the index after its last line. Its
// lines are the header's block (and the next, when the header stands alone), then each block that
// starts with a row (its figures ending where the table's do), or with words whose row follows,
// no more than two line heights under the table: rows spaced further apart than a block's lines
// (a ruled table, descriptions wrapped); up to a line whose `stops` (per line of the page) say so.
std::size_t table_end(const Page& page, std::size_t header, const std::vector<TableColumn>& columns,
                      const std::vector<Stop>& stops, const Lexicon& lexicon,
                      const std::function<bool(const Word&)>& kept);

// A table whose header is not on the page (printed on the page before, a table's continuation):
// the first run of two lines or more that each end in a whole number, a unit price and their
// product, the line's amount (to a cent), their figures standing in the same columns (a line of
// words alone between two of them wraps a description). Its columns (description, quantity, unit
// price, amount) where its first row's words and figures stand, and its lines, [first, end).
// None without such a run: rows that do not check themselves are not read without a header.
struct HeadlessTable {
  std::vector<TableColumn> columns;
  std::size_t first = 0, end = 0;
};
std::optional<HeadlessTable> headless_table(const Page& page, const Lexicon& lexicon,
                                            const std::function<bool(const Word&)>& kept);

}  // namespace docsift::ocr
