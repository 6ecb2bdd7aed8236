// A table's lines cut into a row's parts (table.h's reading, ocr/ only): which words are
// figures, a date's, a description's; what the header says of where they stand. Defined in
// table_cut.cpp; table.cpp groups the cuts into rows and finds where a table ends.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/table.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr::detail {

// A line cut into a row's parts: a date's words at its start (when the table's first column is a
// date), figures at its end (a sign or currency printed apart joined to its number), the
// description between.
struct Cut {
  std::vector<const Word*> date, words;
  std::vector<std::pair<std::string, Box>> figures;  // left to right
};

// What cutting a line needs of the header: how many columns of figures; where the description
// column starts when the first column is a date (a date's words stand left of it), else 0; and
// where the first column of figures starts when the description stands left of it, else 0.
struct Shape {
  std::size_t figures = 0;
  int dated_until = 0, figures_from = 0;
};

bool of_figures(Column c);
// A word of a date's cell: one with a digit and no currency sign, or a month's name ("14/03",
// "14 Mar", "2025-03-14").
bool date_word(const std::string& s, const Lexicon& lexicon);
// A number of digits alone ("0862", "2"): a quantity, or a store's or a page's number; no amount.
bool bare_number(const std::string& s);
Shape shape_of(const std::vector<TableColumn>& columns);
// Each line is cut from its ends: table.h's table_rows says how.
Cut cut_line(const Line& line, const Shape& shape, const Lexicon& lexicon,
             const std::function<bool(const Word&)>& kept);
// The words as one cell, without the marks OCR reads from a ruled table's lines around them.
std::string joined(const std::vector<const Word*>& words);

}  // namespace docsift::ocr::detail
