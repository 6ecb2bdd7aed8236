#include "docsift/ocr/page.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "docsift/text/utf8.h"

namespace docsift::ocr {

void append_joined(std::string& out, std::string_view separator, std::string_view item) {
  if (!out.empty()) out += separator;
  out += item;
}

std::string Line::text() const {
  std::string out;
  for (const auto& w : words) append_joined(out, " ", w.text);
  return out;
}

int Page::words() const {
  int n = 0;
  for (const auto& l : lines) n += static_cast<int>(l.words.size());
  return n;
}

int median_of(std::vector<int> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2),
                   values.end());
  return values[values.size() / 2];
}

std::vector<Word> words_between(const Page& page, int top, int bottom) {
  std::vector<Word> out;
  for (const Line& line : page.lines) {
    for (const Word& w : line.words) {
      if (w.box.center_y() >= top && w.box.center_y() < bottom) out.push_back(w);
    }
  }
  return out;
}

double mean_confidence(const std::vector<Word>& words) {
  double sum = 0;
  for (const Word& w : words) sum += w.confidence;
  return words.empty() ? 0.0 : sum / static_cast<double>(words.size());
}

Page layout_page(std::vector<Word> words, int width, int height, double block_gap) {
  Page page;
  page.width = width;
  page.height = height;
  page.mean_confidence = mean_confidence(words);
  // Top to bottom by centre, so each word meets the lines above it first.
  std::sort(words.begin(), words.end(), [](const Word& a, const Word& b) {
    return a.box.center_y() != b.box.center_y() ? a.box.center_y() < b.box.center_y()
                                                : a.box.left < b.box.left;
  });
  // Each line is matched against its core, the extent of the word that started it, so that a tall
  // speck of noise joining one line cannot stretch it over the next rows. A line a speck started
  // (":" of noise, 2 px high, whose centre sorts it first) takes the first word of the text's
  // height that joins it as its core: with the speck's, the words beside it overlapped it by too
  // little to join, and "Customer: Liam" one pixel lower than "O'Connor" became a line of its own.
  std::vector<int> heights_of_words;
  for (const auto& w : words) heights_of_words.push_back(w.box.height());
  const int median_word = median_of(heights_of_words);
  const auto text_high = [&](const Box& b) {
    return b.height() * 2 >= median_word && b.height() <= 2 * median_word;
  };
  std::vector<Box> cores;
  for (auto& w : words) {
    Line* home = nullptr;
    // Only the last few lines can overlap a word this low.
    for (std::size_t k = page.lines.size(); k-- > 0 && page.lines.size() - k <= 3;) {
      const Box& core = cores[k];
      const int overlap = std::min(core.bottom, w.box.bottom) - std::max(core.top, w.box.top);
      if (overlap * 2 > std::min(core.height(), w.box.height())) {
        home = &page.lines[k];
        if (!text_high(core) && core.height() < w.box.height() && text_high(w.box))
          cores[k] = w.box;
        break;
      }
    }
    if (home == nullptr) {
      page.lines.push_back({{}, w.box, 0});
      cores.push_back(w.box);
      home = &page.lines.back();
    }
    home->box = home->box.with(w.box);
    home->words.push_back(std::move(w));
  }
  for (auto& l : page.lines) {
    std::sort(l.words.begin(), l.words.end(),
              [](const Word& a, const Word& b) { return a.box.left < b.box.left; });
  }
  std::sort(page.lines.begin(), page.lines.end(),
            [](const Line& a, const Line& b) { return a.box.top < b.box.top; });
  if (page.lines.empty()) return page;
  std::vector<int> heights;
  for (const auto& l : page.lines) heights.push_back(l.box.height());
  const double median = median_of(heights);
  for (std::size_t i = 1; i < page.lines.size(); ++i) {
    const int gap = page.lines[i].box.top - page.lines[i - 1].box.bottom;
    page.lines[i].block = page.lines[i - 1].block + (gap > block_gap * median ? 1 : 0);
  }
  return page;
}

bool usable_text_layer(const std::vector<Word>& words) {
  constexpr std::size_t kMinWords = 5;
  if (words.size() < kMinWords) return false;
  std::size_t chars = 0, bad = 0, wordlike = 0;
  for (const auto& w : words) {
    const std::string_view t = w.text;
    if (text::find_invalid_utf8(t) != text::kNoError) return false;
    std::size_t pos = 0, letters = 0;
    bool vowel = false;
    while (pos < t.size()) {
      const char32_t c = text::next_code_point(t, pos);
      ++chars;
      if (c == text::kReplacementChar || c < 0x20 || (c >= 0xE000 && c <= 0xF8FF))
        ++bad;  // private use: glyph ids
      if (c < 0x80 && std::isalpha(static_cast<int>(c)))
        ++letters, vowel = vowel || std::string_view("aeiouyAEIOUY").find(static_cast<char>(c)) !=
                                        std::string_view::npos;
    }
    if (letters >= 3 && vowel) ++wordlike;
  }
  return bad * 10 < chars && wordlike >= 3;
}

}  // namespace docsift::ocr
