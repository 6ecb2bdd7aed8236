// Tesseract's reading of a page (ocr/reader.h): which way up it is read, the middle band's check
// that decides whether a doubtful page is read turned whole, and the boxes of a reading read the
// other way up than the first (engine.h: turn_boxes).
#include <opencv2/core.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/io/pages.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/reader.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Box;
using docsift::ocr::Page;

const std::filesystem::path kSource = DOCSIFT_SOURCE_DIR;

// The box of the first word whose letters, in lower case, are `text`.
std::optional<Box> box_of(const Page& page, const std::string& text) {
  for (const auto& line : page.lines) {
    for (const auto& word : line.words) {
      std::string letters;
      for (const char c : word.text) {
        if (std::isalpha(static_cast<unsigned char>(c)) != 0)
          letters += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      if (letters == text) return word.box;
    }
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("OCR reader: a page upside down is read turned, and the right way up it is not") {
  using namespace docsift::ocr;
  const cv::Mat upright = docsift::io::read_page_pixels(
      kSource / "samples/synthetic_invoice_001.png", 0, docsift::io::PageOptions{});
  cv::Mat upside_down;
  cv::flip(upright, upside_down, -1);  // both axes: turned 180 degrees
  Reader reader(ReaderOptions{});

  Prepared as_is;
  const Page plain = reader.read(upright, &as_is);
  CHECK_FALSE(as_is.turned);
  Prepared as;
  const Page first = reader.read(upside_down, &as);
  REQUIRE(as.turned);
  CHECK(first.mean_confidence > 80);
  CHECK(first.words() == plain.words());

  const auto a = box_of(plain, "total"), b = box_of(first, "total");
  REQUIRE(a);
  REQUIRE(b);
  // The boxes are in the pixels as read: the page turned back is the upright page.
  CHECK(std::abs(a->top - b->top) <= 3);
  CHECK(std::abs(a->left - b->left) <= 3);
}

TEST_CASE(
    "OCR reader: a doubtful page's middle band, read turned, must read 10 points surer than its "
    "upright words for the page to be read turned whole") {
  using namespace docsift::ocr;
  // A word at row y (its box 20 pixels high around it) read at `confidence`.
  const auto word = [](int y, float confidence) {
    return Word{"word", Box{10, y - 10, 60, y + 10}, confidence};
  };
  Page page;
  page.lines.resize(3);
  for (int k = 0; k < 6; ++k) page.lines[1].words.push_back(word(450 + 10 * k, 40));
  page.lines[0].words.push_back(word(100, 90));  // above the band [300, 600): not counted
  page.lines[2].words.push_back(word(600, 90));  // its centre on the band's bottom: not counted
  const std::vector<Word> upright = words_between(page, 300, 600);
  REQUIRE(upright.size() == 6);
  CHECK(mean_confidence(upright) == doctest::Approx(40));

  // Doubtful receipts the right way up read 12 to 32 turned against 21 to 53 upright; pages upside
  // down 70 to 94 turned against 20 to 40 (bench/ocr/README.md).
  CHECK_FALSE(surer_turned(upright, {word(400, 25), word(500, 20)}));
  CHECK(surer_turned(upright, {word(400, 85), word(500, 90)}));
  // The margin is the one a whole turned reading needs: 10 points, not more, not less.
  CHECK_FALSE(surer_turned(upright, {word(400, 50)}));
  CHECK(surer_turned(upright, {word(400, 50.5f)}));
  // Nothing read turned is no reason to read the page turned.
  CHECK_FALSE(surer_turned(upright, {}));
  CHECK(mean_confidence({}) == 0);
}

TEST_CASE("OCR engine: the boxes of a reading the other way up are turned into the first's frame") {
  using namespace docsift::ocr;
  // A page read deskewed and at half size (as Tesseract saw it: 600 x 900), the first reading
  // turned 180 degrees, the evened second reading upright (the 427's 399.jpg).
  constexpr int kWidth = 600, kHeight = 900;
  const Prepared first{1.5, true, 0.5};
  Prepared evened = first;
  evened.turned = false;
  Engine::Result second;
  const Box read_at{100, 700, 220, 730};  // its total, near the page's bottom
  Evidence& total = second.evidence["TOTAL"];
  total.box = read_at;
  total.parts = {{100, 700, 150, 730}, {160, 702, 220, 728}};
  LineItem row;
  row.box = {40, 300, 560, 330};
  row.evidence.box = {40, 300, 400, 330};
  row.price_box = Box{480, 300, 560, 330};
  second.items.push_back(row);

  Engine::Result on_page = second;  // what its own Prepared makes of its boxes
  boxes_to_page(on_page, evened, kWidth, kHeight);
  turn_boxes(second, kWidth, kHeight);
  CHECK(second.evidence["TOTAL"].box == Box{380, 170, 500, 200});
  boxes_to_page(second, first, kWidth, kHeight);  // as Engine::read maps the merged result
  const std::vector<std::pair<Box, Box>> pairs = {
      {second.evidence["TOTAL"].box, on_page.evidence["TOTAL"].box},
      {second.evidence["TOTAL"].parts.at(0), on_page.evidence["TOTAL"].parts.at(0)},
      {second.evidence["TOTAL"].parts.at(1), on_page.evidence["TOTAL"].parts.at(1)},
      {second.items.at(0).box, on_page.items.at(0).box},
      {second.items.at(0).evidence.box, on_page.items.at(0).evidence.box},
      {*second.items.at(0).price_box, *on_page.items.at(0).price_box}};
  for (const auto& [turned, own] : pairs) CHECK(turned == own);
  // Not turned, the first reading's Prepared would put the total near the page's top (the defect).
  CHECK(to_page(read_at, first, kWidth, kHeight).top < 500);
  CHECK(on_page.evidence["TOTAL"].box.top > 1000);
}
