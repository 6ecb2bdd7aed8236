// libFuzzer target: what the OCR engine reads from untrusted text (OCR output, a PDF's text
// layer): amounts, dates, phones, emails, websites, labels' case folding and edit distance, and
// lines rebuilt from words.
// Every offset a parser reports must lie inside the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "docsift/edit_distance.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/values.h"

namespace {

const docsift::ocr::Lexicon& lexicon() {
  static const docsift::ocr::Lexicon lex = [] {
    docsift::ocr::Lexicon l;
    l.months[0] = {"jan", "january", "januar"};
    l.months[2] = {"mar", "märz", "mars"};
    l.currencies = {{"$", {"$", "usd"}}, {"RM", {"rm"}}, {"€", {"€", "eur"}}, {"Kč", {"kč"}}};
    return l;
  }();
  return lex;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace docsift::ocr;
  for (const auto& a : find_amounts(text, lexicon(), size % 2 == 0)) {
    if (a.begin > a.end || a.end > text.size() || a.cents < 0) __builtin_trap();
    (void)format_amount(a.cents, a.currency);
  }
  for (const auto order : {DateOrder::Dmy, DateOrder::Mdy}) {
    for (const auto& d : find_dates(text, lexicon(), order)) {
      if (d.begin > d.end || d.end > text.size() || d.month < 1 || d.month > 12 || d.day < 1 ||
          d.day > 31)
        __builtin_trap();
    }
  }
  if (lowercase(text).size() != text.size()) __builtin_trap();  // offsets in the lowered text hold
  (void)casefold(text);
  (void)docsift::edit_distance(text.substr(0, 64), text.substr(text.size() / 2, 64), 1);
  (void)parse_abn(text), (void)parse_phone(text), (void)clean_text(text);
  // The parsers whose patterns read a whole line: each must end on any line (a pattern that can
  // split a run of specks many ways would not: libFuzzer's -timeout says so).
  (void)parse_email(text), (void)parse_website(text), (void)letters_only(text);
  (void)home_region_repaired(text, {"nsw", "sa", "qld"});
  // Words from the bytes (a PDF's text layer can say anything), laid out into lines.
  std::vector<Word> words;
  for (std::size_t i = 0; i + 4 <= size && words.size() < 200; i += 4) {
    const int x = data[i], y = data[i + 1], w = data[i + 2] % 64, h = data[i + 3] % 64;
    words.push_back(
        {std::string(text.substr(i, 4)), {x, y, x + w, y + h}, static_cast<float>(data[i] % 101)});
  }
  (void)usable_text_layer(words);
  const Page page = layout_page(std::move(words), 256, 256);
  std::size_t n = 0;
  for (const auto& line : page.lines) n += line.words.size();
  if (n != static_cast<std::size_t>(page.words())) __builtin_trap();
  return 0;
}
