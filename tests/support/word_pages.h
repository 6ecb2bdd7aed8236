// Pages of OCR words built in code for the table readers' tests (ocr/table.h, ocr/table_receipt.h):
// each word 10 px per character and 20 px tall, laid out by the engine's own layout_page, with the
// shipped rules they are read by.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"

namespace docsift::testing {

inline const ocr::Rules& shipped_rules() {
  static const auto r = ocr::load_rules("builtin:ocr-rules");
  return r;
}

// Every word counts (no specks to leave out).
inline bool every_word(const ocr::Word&) { return true; }

struct Placed {
  std::string text;
  int x;
};

// Each line at its own y, its words at their x, on an 850 × 1100 page.
inline ocr::Page page_at(const std::vector<std::pair<int, std::vector<Placed>>>& lines,
                         float confidence = 95.0f) {
  std::vector<ocr::Word> words;
  for (const auto& [y, line] : lines) {
    for (const auto& [text, x] : line)
      words.push_back({text, {x, y, x + 10 * static_cast<int>(text.size()), y + 20}, confidence});
  }
  return ocr::layout_page(std::move(words), 850, 1100);
}

// Lines 30 px apart from the top, each word at its x.
inline ocr::Page page_of(const std::vector<std::vector<Placed>>& lines) {
  std::vector<std::pair<int, std::vector<Placed>>> at;
  for (const auto& line : lines) at.push_back({30 * static_cast<int>(at.size()), line});
  return page_at(at);
}

// A till receipt: each line's words left to right from x = 20 with one space (10 px) between,
// lines 30 px apart from y = 20, on a page 600 px wide.
inline ocr::Page till_receipt(const std::vector<std::vector<std::string>>& lines) {
  std::vector<ocr::Word> words;
  int y = 20;
  for (const auto& line : lines) {
    int x = 20;
    for (const auto& text : line) {
      const int w = 10 * static_cast<int>(text.size());
      words.push_back({text, {x, y, x + w, y + 20}, 95.0f});
      x += w + 10;
    }
    y += 30;
  }
  return ocr::layout_page(std::move(words), 600, y + 20);
}

}  // namespace docsift::testing
