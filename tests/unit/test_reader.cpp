// Tesseract's reading of a page (ocr/reader.h): which way up it is read.
#include <opencv2/core.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "docsift/io/pages.h"
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

TEST_CASE(
    "OCR reader: a page upside down is read turned, its middle band read turned first, and the right "
    "way up it is not") {
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
