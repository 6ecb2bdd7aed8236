#include "docsift/ocr/table.h"

#include <utf8proc.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>

#include "docsift/ocr/table_cut.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

using detail::Cut;
using detail::cut_line;
using detail::joined;
using detail::of_figures;
using detail::Shape;
using detail::shape_of;

namespace {

// Lower case without accents: OCR drops them ("Operation" for "Opération", "Libelle").
std::string unaccented(const std::string& s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return s;
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
      &mapped, static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STRIPMARK));
  if (n < 0) return s;  // not UTF-8: bytes as they are
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  std::free(mapped);
  return out;
}

// Lower case without accents or spaces: a phrase as OCR may read it in one word.
std::string spaceless(const std::string& s) {
  std::string out = unaccented(s);
  out.erase(std::remove(out.begin(), out.end(), ' '), out.end());
  return out;
}

// A header word as its column's phrases are written: lower case, without the marks around it.
std::string header_word(const std::string& text) {
  std::string w = lowercase(text);
  // OCR reads a ruled table's lines and underlines as marks around the words ("[Date",
  // "_Einzelpreis", "Soll|", "_—Price__", "‘Transaction"): ASCII marks, dashes and
  // quotes.
  const auto mark = [](char c) {
    return std::string_view(":._|[]'\"-~=").find(c) != std::string_view::npos;
  };
  for (bool more = true; more;) {
    more = false;
    for (const std::string_view dash :
         {"\u2014", "\u2013", "\u2018", "\u2019", "\u201c", "\u201d"}) {
      if (w.size() >= dash.size() && w.compare(0, dash.size(), dash) == 0)
        w.erase(0, dash.size()), more = true;
      if (w.size() >= dash.size() && w.compare(w.size() - dash.size(), dash.size(), dash) == 0)
        w.erase(w.size() - dash.size()), more = true;
    }
    while (!w.empty() && mark(w.back())) w.pop_back(), more = true;
    std::size_t from = 0;
    while (from < w.size() && mark(w[from])) ++from;
    if (from > 0) w.erase(0, from), more = true;
  }
  return w;
}

// A header's words, each cut at a rule OCR read into it ("_Price__Line" is "Price" and "Line"),
// each piece's box its share of the word's by its length.
std::vector<Word> header_words(const Line& line) {
  std::vector<Word> out;
  for (const Word& word : line.words) {
    const std::string& t = word.text;
    const int width = word.box.right - word.box.left;
    for (std::size_t at = 0; at < t.size();) {
      const std::size_t end = std::min(t.find('_', at), t.find('|', at));
      const std::size_t stop = end == std::string::npos ? t.size() : end;
      if (stop > at) {
        Word piece = word;
        piece.text = t.substr(at, stop - at);
        piece.box.left = word.box.left + static_cast<int>(width * at / t.size());
        piece.box.right = word.box.left + static_cast<int>(width * stop / t.size());
        out.push_back(std::move(piece));
      }
      at = stop + 1;
    }
  }
  return out;
}

// A table's rows may stand further apart than a block's lines (a ruled table's, rows with wrapped
// descriptions): a line this many of its heights under the table's last one can still be a row.
constexpr double kRowGap = 2.0;

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

// What take_misread needs of the table: its columns of figures, left to right, whether the row has
// a figure in each, where each one's figures end, and where the first starts.
struct Misreading {
  const std::vector<Column>& numeric;
  const std::vector<bool>& filled;
  const std::vector<int>& at;
  int figures_from = 0;
};

// The last of `words` (a row's description) that is of page.lines[line] out of them, into `out`,
// where it is a misread figure (TableRow::Misread): it stands right of where the figures start,
// its right edge within a line's height of where a column the row has no figure in ends. A
// description keeps one word at least.
void take_misread(const Page& page, std::size_t line, const Misreading& table,
                  std::vector<const Word*>& words, std::vector<TableRow::Misread>& out) {
  const std::vector<Word>& own = page.lines[line].words;
  const auto of_line = [&](const Word* w) {
    return std::any_of(own.begin(), own.end(), [&](const Word& o) { return &o == w; });
  };
  const auto last = std::find_if(words.rbegin(), words.rend(), of_line);
  if (table.figures_from <= 0 || words.size() < 2 || last == words.rend()) return;
  const Word& w = **last;
  if (w.box.left < table.figures_from) return;
  const bool digit = std::any_of(w.text.begin(), w.text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  const int tolerance = std::max(1, page.lines[line].box.height());
  for (std::size_t c = 0; c < table.numeric.size(); ++c) {
    if (table.filled[c] || std::abs(w.box.right - table.at[c]) > tolerance) continue;
    if (!digit && !(table.numeric[c] == Column::kQuantity && w.text.size() <= 3)) return;
    out.push_back({table.numeric[c], line, static_cast<std::size_t>(&w - own.data())});
    words.erase(std::next(last).base());
    return;
  }
}

}  // namespace

std::optional<std::vector<TableColumn>> table_header(const Line& line, const TableWords& words) {
  std::vector<TableColumn> columns;
  std::vector<int> ranks;  // per column: its phrase's place in its list
  const std::vector<Word> w = header_words(line);
  for (std::size_t i = 0; i < w.size();) {
    std::size_t took = 0;
    for (std::size_t n = std::min<std::size_t>(3, w.size() - i); n >= 1 && took == 0; --n) {
      std::string phrase;
      for (std::size_t k = i; k < i + n; ++k) {
        if (!phrase.empty()) phrase += ' ';
        phrase += header_word(w[k].text);
      }
      for (const auto& [column, phrases] : words) {
        // Accents OCR dropped ("Operation"), or, in one word, the spaces ("Prixunitaire").
        const auto at = std::find_if(phrases.begin(), phrases.end(), [&](const std::string& p) {
          return p == phrase || unaccented(p) == unaccented(phrase) ||
                 (n == 1 && p.find(' ') != std::string::npos && spaceless(p) == phrase);
        });
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

// Lines into rows. A line of figures alone fills the row above it, when that row is short of
// figures (a row broken over two lines by a skewed scan). A line of words alone is the first line
// of the row below it when figures follow it (alone, or after the rest of a description: a row's
// figures on its last line), and that row is closer to it than the row above is, or as close in
// a table whose first row starts so; else it continues the description above it (wrapped), when
// close under it. `cuts`: the lines from page.lines[first] on; `figure_columns`: how many columns
// of figures.
struct Group {
  Cut cut;
  std::vector<std::size_t> lines;
  Box box;
  bool waiting = false;  // words alone, waiting for their row's figures on the next line
};
std::vector<Group> grouped(const Page& page, std::size_t first, std::vector<Cut> cuts,
                           std::size_t figure_columns) {
  std::vector<Group> groups;
  const auto height = [&](std::size_t i) { return std::max(1, page.lines[i].box.height()); };
  // How far line i stands under the row above it; "close" within the taller of the two lines.
  const auto gap_above = [&](std::size_t i) {
    return page.lines[i].box.top - page.lines[groups.back().lines.back()].box.bottom;
  };
  const auto close_under = [&](std::size_t i) {
    return !groups.empty() &&
           gap_above(i) < std::max(height(i), height(groups.back().lines.front()));
  };
  const auto empty = [](const Cut& c) {
    return c.date.empty() && c.words.empty() && c.figures.empty();
  };
  const auto words_only = [](const Cut& c) { return c.date.empty() && c.figures.empty(); };
  // Whether a line has figures and no date: the end of a row whose words began above it.
  const auto ends_row = [](const Cut& c) { return c.date.empty() && !c.figures.empty(); };
  std::size_t top = 0;
  while (top < cuts.size() && empty(cuts[top])) ++top;
  const bool bottom_first = top + 1 < cuts.size() && words_only(cuts[top]) && !empty(cuts[top]) &&
                            ends_row(cuts[top + 1]);
  for (std::size_t n = 0; n < cuts.size(); ++n) {
    Cut& cut = cuts[n];
    const std::size_t i = first + n;
    if (empty(cut)) continue;
    const bool figures_only = cut.date.empty() && cut.words.empty();
    const bool figures_next = n + 1 < cuts.size() && ends_row(cuts[n + 1]);
    Group* into = nullptr;
    if (!groups.empty() && groups.back().waiting && ends_row(cut) && close_under(i)) {
      into = &groups.back();
    } else if (figures_only && close_under(i) &&
               groups.back().cut.figures.size() + cut.figures.size() <= figure_columns) {
      into = &groups.back();
    } else if (words_only(cut) && close_under(i) && !groups.back().cut.figures.empty()) {
      // Wrapped, unless the row below is closer (its figures on its last line).
      const int below = figures_next ? page.lines[i + 1].box.top - page.lines[i].box.bottom : 0;
      const int margin = std::max(2, height(i) / 8);
      const bool apart = figures_next && cuts[n + 1].words.empty();  // a row broken in two
      const bool next =
          apart || (figures_next && (below + margin < gap_above(i) ||
                                     (bottom_first && below <= gap_above(i) + margin)));
      if (!next) into = &groups.back();
    }
    if (into == nullptr) {
      groups.push_back({std::move(cut), {i}, page.lines[i].box, false});
      groups.back().waiting = words_only(groups.back().cut) && figures_next;
      continue;
    }
    into->cut.words.insert(into->cut.words.end(), cut.words.begin(), cut.words.end());
    into->cut.figures.insert(into->cut.figures.end(), cut.figures.begin(), cut.figures.end());
    into->lines.push_back(i);
    into->box = into->box.with(page.lines[i].box);
    into->waiting = false;
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
  const Shape shape = shape_of(columns);
  end = std::min(end, page.lines.size());
  std::vector<Cut> cuts;
  for (std::size_t i = first; i < end; ++i)
    cuts.push_back(cut_line(page.lines[i], shape, lexicon, kept));
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
    std::vector<int> xs;
    for (const auto& f : g.cut.figures) xs.push_back(f.second.right);
    // A figure in every column: in order. Fewer: each to the nearest column, keeping their order.
    std::vector<std::size_t> to(xs.size());
    for (std::size_t k = 0; k < to.size(); ++k) to[k] = k;
    if (xs.size() < numeric.size()) to = nearest_in_order(xs, at);
    std::vector<bool> filled(numeric.size(), false);
    for (std::size_t k = 0; k < g.cut.figures.size(); ++k) {
      row.cells[numeric[to[k]]] = g.cut.figures[k].first;
      filled[to[k]] = true;
    }
    std::vector<const Word*> words = g.cut.words;
    const Misreading columns{numeric, filled, at, shape.figures_from};
    take_misread(page, g.lines.front(), columns, words, row.misread);
    if (!g.cut.date.empty()) row.cells[Column::kDate] = joined(g.cut.date);
    if (!words.empty()) row.cells[Column::kDescription] = joined(words);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::size_t table_end(const Page& page, std::size_t header, const std::vector<TableColumn>& columns,
                      const std::vector<Stop>& stops, const Lexicon& lexicon,
                      const std::function<bool(const Word&)>& kept) {
  const Shape shape = shape_of(columns);
  std::vector<int> edges;   // where the table's figures end: its header's, then its rows'
  std::vector<int> counts;  // where its quantities end: a bare number ("2") aligns only there
  for (const TableColumn& c : columns) {
    if (of_figures(c.kind)) edges.push_back(c.right);
    if (c.kind == Column::kQuantity) counts.push_back(c.right);
  }
  const std::size_t n = page.lines.size();
  // Whether line i starts close enough under line i - 1; whether it ends in figures where the
  // table's do (with words before them, when `words`).
  const auto close = [&](std::size_t i) {
    const Line& line = page.lines[i];
    return line.box.top - page.lines[i - 1].box.bottom <= kRowGap * std::max(1, line.box.height());
  };
  const auto aligned = [&](std::size_t i, bool words) {
    const Cut cut = cut_line(page.lines[i], shape, lexicon, kept);
    if (words && cut.words.empty() && cut.date.empty()) return false;
    const int tolerance = 2 * std::max(1, page.lines[i].box.height());
    return std::any_of(cut.figures.begin(), cut.figures.end(), [&](const auto& f) {
      const std::vector<int>& at = detail::bare_number(f.first) ? counts : edges;
      return std::any_of(at.begin(), at.end(),
                         [&](int e) { return std::abs(e - f.second.right) <= tolerance; });
    });
  };
  const int block = page.lines[header].block;
  const bool alone = header + 1 < n && page.lines[header + 1].block != block;
  int last = alone && header + 1 < n ? page.lines[header + 1].block : block;
  std::size_t end = header + 1;
  for (; end < n; ++end) {
    const Line& line = page.lines[end];
    if (stops[end] == Stop::kYes ||
        (stops[end] == Stop::kUnlessRowFollows &&
         !(end + 1 < n && stops[end + 1] == Stop::kNo && close(end + 1) && aligned(end + 1, true))))
      break;
    if (line.block != last) {
      // A block of its own: rows spaced apart (a ruled table, descriptions wrapped), when it
      // starts with a row, or with words whose row follows them.
      const bool next = end + 1 < n && page.lines[end + 1].block == line.block;
      if (!close(end) || !(aligned(end, false) || (next && aligned(end + 1, false)))) break;
      last = line.block;
    }
    for (const auto& f : cut_line(line, shape, lexicon, kept).figures)
      edges.push_back(f.second.right);
  }
  return end;
}

}  // namespace docsift::ocr
