#include "docsift/ocr/table.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>

#include "docsift/ocr/values.h"

namespace docsift::ocr {

namespace {

// A header word as its column's phrases are written: lower case, without the marks around it.
std::string header_word(const std::string& text) {
  std::string w = lowercase(text);
  // OCR reads a ruled table's lines and underlines as marks around the words ("[Date",
  // "_Einzelpreis", "Soll|").
  const auto mark = [](char c) {
    return c == ':' || c == '.' || c == '_' || c == '|' || c == '[' || c == ']' || c == '\'';
  };
  while (!w.empty() && mark(w.back())) w.pop_back();
  std::size_t from = 0;
  while (from < w.size() && mark(w[from])) ++from;
  return w.substr(from);
}

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

bool of_figures(Column c) { return c != Column::kDescription && c != Column::kDate; }

// Assigns `xs` (the figures' right edges, left to right) to the columns at `at` (left to right),
// keeping their order, for the least total distance: which column each figure goes to.
// best[i][j]: the least distance placing the first i figures in the first j columns.
std::vector<std::size_t> nearest_in_order(const std::vector<int>& xs, const std::vector<int>& at) {
  const std::size_t k = xs.size(), m = at.size();
  constexpr double kNone = 1e18;
  std::vector<std::vector<double>> best(k + 1, std::vector<double>(m + 1, kNone));
  for (std::size_t j = 0; j <= m; ++j) best[0][j] = 0;
  for (std::size_t i = 1; i <= k; ++i) {
    for (std::size_t j = i; j <= m; ++j) {
      best[i][j] = std::min(best[i][j - 1], best[i - 1][j - 1] + std::abs(xs[i - 1] - at[j - 1]));
    }
  }
  std::vector<std::size_t> out(k);
  for (std::size_t i = k, j = m; i > 0; --j) {
    if (j > i && best[i][j] == best[i][j - 1]) continue;  // column j-1 left empty
    out[i - 1] = j - 1;
    --i;
  }
  return out;
}

}  // namespace

std::optional<std::vector<TableColumn>> table_header(const Line& line, const TableWords& words) {
  std::vector<TableColumn> columns;
  std::vector<int> ranks;  // per column: its phrase's place in its list
  const auto& w = line.words;
  for (std::size_t i = 0; i < w.size();) {
    std::size_t took = 0;
    for (std::size_t n = std::min<std::size_t>(3, w.size() - i); n >= 1 && took == 0; --n) {
      std::string phrase;
      for (std::size_t k = i; k < i + n; ++k) {
        if (!phrase.empty()) phrase += ' ';
        phrase += header_word(w[k].text);
      }
      for (const auto& [column, phrases] : words) {
        const auto at = std::find(phrases.begin(), phrases.end(), phrase);
        if (at == phrases.end()) continue;
        // A column named twice ("Item Code" … "Description") is the name its list gives first.
        const int rank = static_cast<int>(at - phrases.begin());
        const auto taken = std::find_if(columns.begin(), columns.end(),
                                        [&](const TableColumn& c) { return c.kind == column; });
        if (taken == columns.end()) {
          columns.push_back({column, w[i].box.left, w[i + n - 1].box.right});
          ranks.push_back(rank);
        } else if (rank < ranks[static_cast<std::size_t>(taken - columns.begin())]) {
          *taken = {column, w[i].box.left, w[i + n - 1].box.right};
          ranks[static_cast<std::size_t>(taken - columns.begin())] = rank;
        }
        took = n;
        break;
      }
    }
    i += took == 0 ? 1 : took;
  }
  const bool described = std::any_of(columns.begin(), columns.end(), [](const TableColumn& c) {
    return c.kind == Column::kDescription;
  });
  if (!described || columns.size() < 2) return std::nullopt;
  std::sort(columns.begin(), columns.end(),
            [](const TableColumn& a, const TableColumn& b) { return a.left < b.left; });
  return columns;
}

namespace {

// A line cut into a row's parts: a date's words at its start (when the table's first column is a
// date), figures at its end (a sign or currency printed apart joined to its number), the
// description between.
struct Cut {
  std::vector<const Word*> date, words;
  std::vector<std::pair<std::string, Box>> figures;  // left to right
};

// `dated_until`: where the description column starts when the first column is a date (a date's
// words stand left of it), else 0.
Cut cut_line(const Line& line, std::size_t most_figures, int dated_until, const Lexicon& lexicon,
             const std::function<bool(const Word&)>& kept) {
  std::vector<const Word*> w;
  for (const Word& word : line.words) {
    if (kept(word)) w.push_back(&word);
  }
  Cut cut;
  std::size_t from = 0, to = w.size();
  while (from < to && from < 3 && w[from]->box.left < dated_until &&
         date_word(w[from]->text, lexicon)) {
    cut.date.push_back(w[from++]);
  }
  // From the right: figures, up to one per column of figures; a percentage (a tax rate) is passed
  // over.
  std::vector<std::pair<std::string, Box>> figures;
  while (to > from && figures.size() < most_figures) {
    const std::string& t = w[to - 1]->text;
    if (!t.empty() && t.back() == '%' && figure(t)) {
      --to;
      continue;
    }
    if (!figure(t)) break;
    std::pair<std::string, Box> f{t, w[to - 1]->box};
    --to;
    // Cents read apart from their dollars ("$129 .32"): one figure.
    if ((t.front() == '.' || t.front() == ',') && to > from && figure(w[to - 1]->text) &&
        std::isdigit(static_cast<unsigned char>(w[to - 1]->text.back()))) {
      f.first.insert(0, w[to - 1]->text);
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
    if (!out.empty()) out += ' ';
    out += w->text;
  }
  return out;
}

// Lines into rows. A line of figures alone fills the row above it, when that row is short of
// figures (a row broken over two lines by a skewed scan); a line of words alone starts a row when
// figures alone follow it, else continues the description above it (wrapped), when close under
// it. `cuts`: the lines from page.lines[first] on; `figure_columns`: how many columns of figures.
struct Group {
  Cut cut;
  std::vector<std::size_t> lines;
  Box box;
};
std::vector<Group> grouped(const Page& page, std::size_t first, std::vector<Cut> cuts,
                           std::size_t figure_columns) {
  std::vector<Group> groups;
  const auto close_under = [&](std::size_t i) {
    return !groups.empty() &&
           page.lines[i].box.top - groups.back().box.bottom < page.lines[i].box.height();
  };
  for (std::size_t n = 0; n < cuts.size(); ++n) {
    Cut& cut = cuts[n];
    const std::size_t i = first + n;
    if (cut.date.empty() && cut.words.empty() && cut.figures.empty()) continue;
    const bool figures_only = cut.date.empty() && cut.words.empty();
    const bool words_only = cut.date.empty() && cut.figures.empty();
    const bool figures_next = n + 1 < cuts.size() && cuts[n + 1].date.empty() &&
                              cuts[n + 1].words.empty() && !cuts[n + 1].figures.empty();
    Group* into = nullptr;
    if (figures_only && close_under(i) &&
        groups.back().cut.figures.size() + cut.figures.size() <= figure_columns) {
      into = &groups.back();
    } else if (words_only && !figures_next && close_under(i) &&
               !groups.back().cut.figures.empty()) {
      into = &groups.back();
    }
    if (into == nullptr) {
      groups.push_back({std::move(cut), {i}, page.lines[i].box});
      continue;
    }
    into->cut.words.insert(into->cut.words.end(), cut.words.begin(), cut.words.end());
    into->cut.figures.insert(into->cut.figures.end(), cut.figures.begin(), cut.figures.end());
    into->lines.push_back(i);
    into->box = into->box.with(page.lines[i].box);
  }
  return groups;
}

}  // namespace

std::vector<TableRow> table_rows(const Page& page, std::size_t first, std::size_t end,
                                 const std::vector<TableColumn>& columns, const Lexicon& lexicon,
                                 const std::function<bool(const Word&)>& kept) {
  std::vector<Column> numeric;  // the columns of figures, left to right
  std::vector<int> at;  // where each one's figures end: its header's right edge, until rows say
  for (const TableColumn& c : columns) {
    if (of_figures(c.kind)) numeric.push_back(c.kind), at.push_back(c.right);
  }
  int dated_until = 0;  // where a date's words end: the description's header, after a date's
  if (columns.front().kind == Column::kDate) {
    for (const TableColumn& c : columns) {
      if (c.kind == Column::kDescription) dated_until = c.left;
    }
  }
  end = std::min(end, page.lines.size());
  std::vector<Cut> cuts;
  for (std::size_t i = first; i < end; ++i)
    cuts.push_back(cut_line(page.lines[i], numeric.size(), dated_until, lexicon, kept));
  const std::vector<Group> groups = grouped(page, first, std::move(cuts), numeric.size());
  // Where the figures stand, from the rows that print one in every column: a header need not sit
  // over its column (a proportional header over a monospace table, a receipt's drift).
  for (std::size_t c = 0; c < numeric.size(); ++c) {
    std::vector<int> edges;
    for (const Group& g : groups) {
      if (g.cut.figures.size() == numeric.size()) edges.push_back(g.cut.figures[c].second.right);
    }
    if (edges.empty()) continue;
    std::nth_element(edges.begin(), edges.begin() + static_cast<long>(edges.size() / 2),
                     edges.end());
    at[c] = edges[edges.size() / 2];
  }
  std::vector<TableRow> rows;
  for (const Group& g : groups) {
    TableRow row;
    row.lines = g.lines;
    row.box = g.box;
    if (!g.cut.date.empty()) row.cells[Column::kDate] = joined(g.cut.date);
    if (!g.cut.words.empty()) row.cells[Column::kDescription] = joined(g.cut.words);
    std::vector<int> xs;
    for (const auto& f : g.cut.figures) xs.push_back(f.second.right);
    // A figure in every column: in order. Fewer: each to the nearest column, keeping their order.
    std::vector<std::size_t> to(xs.size());
    for (std::size_t k = 0; k < to.size(); ++k) to[k] = k;
    if (xs.size() < numeric.size()) to = nearest_in_order(xs, at);
    for (std::size_t k = 0; k < g.cut.figures.size(); ++k)
      row.cells[numeric[to[k]]] = g.cut.figures[k].first;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace docsift::ocr
