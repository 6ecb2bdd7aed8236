#include "docsift/ocr/table_cut.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <utility>

namespace docsift::ocr::detail {

namespace {

// A word that is a figure by itself: digits with at most a sign, a currency sign, separators and a
// bracket ("4", "$38.50", "1,234.56-", "(45.00)", "2.5").
bool figure(const std::string& s) {
  bool digit = false;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (std::string_view("$.,-+()%").find(c) == std::string_view::npos &&
               static_cast<unsigned char>(c) < 0x80) {
      return false;
    }
  }
  return digit;
}

// A word printed apart from the figure after it: a currency or a sign ("$ 38.50", "RM 12.00",
// "- 5.00").
bool figure_mark(const std::string& s) {
  static const std::set<std::string> marks{"$",   "-",   "+",   "€",   "£",  "RM",
                                           "AUD", "USD", "EUR", "GBP", "CHF"};
  return marks.count(s) != 0;
}

// A word without the marks OCR reads from a ruled table's lines around it ("$702.65]", "|04/06",
// "payment_").
std::string unmarked(const std::string& s) {
  const auto mark = [](char c) { return c == '_' || c == '|' || c == '[' || c == ']'; };
  std::size_t from = 0, to = s.size();
  while (from < to && mark(s[from])) ++from;
  while (to > from && mark(s[to - 1])) --to;
  return s.substr(from, to - from);
}

// A balance's side printed after it ("1,234.56 CR", "45.00 DR").
bool side_mark(const std::string& s) {
  const std::string w = lowercase(s);
  return w == "cr" || w == "dr" || w == "cr." || w == "dr.";
}

}  // namespace

// A word of a date's cell: one with a digit, or a month's name ("14/03", "14 Mar", "2025-03-14").
bool date_word(const std::string& s, const Lexicon& lexicon) {
  for (const char* sign : {"$", "€", "£"}) {
    if (s.find(sign) != std::string::npos) return false;  // an amount
  }
  if (std::any_of(s.begin(), s.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return true;
  std::string folded = casefold(s);
  while (!folded.empty() && (folded.back() == '.' || folded.back() == ',')) folded.pop_back();
  return std::any_of(lexicon.months.begin(), lexicon.months.end(),
                     [&](const std::vector<std::string>& names) {
                       return std::find(names.begin(), names.end(), folded) != names.end();
                     });
}

// A number of digits alone ("0862"), no amount: a store's or a card's number ending a
// description stands left of the columns of figures.
bool bare_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

bool of_figures(Column c) { return c != Column::kDescription && c != Column::kDate; }

Shape shape_of(const std::vector<TableColumn>& columns) {
  Shape shape;
  int description = -1;
  for (const TableColumn& c : columns) {
    if (c.kind == Column::kDescription) description = c.left;
    if (!of_figures(c.kind)) continue;
    if (shape.figures++ == 0 && description >= 0) shape.figures_from = c.left;
  }
  if (columns.front().kind == Column::kDate) shape.dated_until = std::max(0, description);
  return shape;
}

Cut cut_line(const Line& line, const Shape& shape, const Lexicon& lexicon,
             const std::function<bool(const Word&)>& kept) {
  // A figure read with little confidence is no speck when it stands as tall as the line's
  // letters: a quantity's "3" beside a ruled column.
  std::vector<int> heights;
  for (const Word& word : line.words) heights.push_back(word.box.height());
  const int tall = median_of(std::move(heights)) * 3 / 5;
  std::vector<const Word*> w;
  for (const Word& word : line.words) {
    if (kept(word) || (bare_number(word.text) && word.box.height() >= tall)) w.push_back(&word);
  }
  Cut cut;
  std::size_t from = 0, to = w.size();
  while (from < to && from < 3 && w[from]->box.left < shape.dated_until &&
         date_word(w[from]->text, lexicon)) {
    cut.date.push_back(w[from++]);
  }
  // From the right: figures, up to one per column of figures; a percentage (a tax rate) is passed
  // over.
  std::vector<std::pair<std::string, Box>> figures;
  while (to > from && figures.size() < shape.figures) {
    // A balance's side after it ("1,234.56 CR"): part of the figure.
    const bool sided =
        to - from >= 2 && side_mark(w[to - 1]->text) && figure(unmarked(w[to - 2]->text));
    const Word* side = sided ? w[--to] : nullptr;
    const std::string t = unmarked(w[to - 1]->text);
    if (!t.empty() && t.back() == '%' && figure(t)) {
      --to;
      continue;
    }
    if (!figure(t)) break;
    if (bare_number(t) && w[to - 1]->box.right < shape.figures_from - line.box.height()) break;
    std::pair<std::string, Box> f{t, w[to - 1]->box};
    if (side != nullptr) f = {t + ' ' + side->text, f.second.with(side->box)};
    --to;
    // Cents read apart from their dollars ("$129 .32"): one figure.
    if ((t.front() == '.' || t.front() == ',') && to > from && figure(unmarked(w[to - 1]->text)) &&
        std::isdigit(static_cast<unsigned char>(w[to - 1]->text.back()))) {
      f.first.insert(0, unmarked(w[to - 1]->text));
      f.second = w[to - 1]->box.with(f.second);
      --to;
    }
    if (to > from && figure_mark(w[to - 1]->text)) {
      f.first.insert(0, w[to - 1]->text + ' ');
      f.second = w[to - 1]->box.with(f.second);
      --to;
    }
    figures.push_back(std::move(f));
  }
  cut.figures.assign(figures.rbegin(), figures.rend());
  cut.words.assign(w.begin() + static_cast<long>(from), w.begin() + static_cast<long>(to));
  return cut;
}

std::string joined(const std::vector<const Word*>& words) {
  std::string out;
  for (const Word* w : words) {
    const std::string t = unmarked(w->text);
    if (t.empty()) continue;
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

}  // namespace docsift::ocr::detail
