// A page as OCR reads it: words with boxes and confidences, grouped into lines (words whose
// vertical extents overlap, left to right) and blocks (lines without a large gap between them).
// Lines are rebuilt from the word boxes rather than taken from the OCR engine's own layout, which
// splits a table into column blocks: here a table row is one line, its cells in x order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace docsift::ocr {

struct Box {
  int left = 0, top = 0, right = 0, bottom = 0;
  int height() const { return bottom - top; }
  int center_y() const { return (top + bottom) / 2; }
  bool operator==(const Box&) const = default;
  // The smallest box holding this one and `other`.
  Box with(const Box& other) const {
    return {left < other.left ? left : other.left, top < other.top ? top : other.top,
            right > other.right ? right : other.right,
            bottom > other.bottom ? bottom : other.bottom};
  }
  // Whether `other` lies wholly inside this box.
  bool holds(const Box& other) const {
    return left <= other.left && other.right <= right && top <= other.top && other.bottom <= bottom;
  }
};

struct Word {
  std::string text;
  Box box;
  float confidence = 0;  // 0-100, as Tesseract reports it
};

struct Line {
  std::vector<Word> words;  // left to right
  Box box;
  int block = 0;  // lines of one block have no gap larger than about one line between them
  // The words joined by single spaces.
  std::string text() const;
};

struct Page {
  int width = 0, height = 0;
  std::vector<Line> lines;     // top to bottom
  double mean_confidence = 0;  // over the words, 0 when there are none
  bool exact = false;          // words from a PDF's text layer, as printed: no OCR misread to undo
  int words() const;
};

// The median of `values` (the upper one of an even count), 0 when there are none: a page's, a
// line's or a segment's word height, against which a speck or a heading is told.
int median_of(std::vector<int> values);

// Lines and blocks from words in any order. A word joins the line whose vertical centre it
// overlaps by more than half of the smaller height; a new block starts where the gap to the line
// above exceeds `block_gap` times the median line height.
Page layout_page(std::vector<Word> words, int width, int height, double block_gap = 1.0);
// The words of `page` whose centres are in its rows [top, bottom).
std::vector<Word> words_between(const Page& page, int top, int bottom);
// The words' mean confidence (0-100), 0 when there are none: Page::mean_confidence.
double mean_confidence(const std::vector<Word>& words);

// Whether words from a PDF's text layer can be trusted over OCR: enough words, few replacement,
// control or private-use characters (a font without a Unicode map extracts as glyph ids), and
// some that read as words (three letters or more with a vowel).
bool usable_text_layer(const std::vector<Word>& words);

// Appends `item` to `out`, after `separator` unless `out` is empty: the engine's words joined by
// " " and a list's items by " | ". In place, where `out += (... ? "" : sep) + item` built a
// temporary (and GCC 12 warned of an overlap it imagined in it).
void append_joined(std::string& out, std::string_view separator, std::string_view item);

}  // namespace docsift::ocr
