// A page's crops for the second recognizer (lib/docsift/ocr/page_crops.h): each box cut with its
// margin, clipped to the page, turned upright on a page read turned, and read once a page; a
// value's lines read one by one and joined. The recognizer here is a recording one: what is under
// test is the cutting and the once-a-page reading, not the network (tests/parity checks that).
#include <opencv2/core.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/page_crops.h"

#include <doctest/doctest.h>

namespace {

using docsift::ocr::Box;
using docsift::ocr::LineText;
using docsift::ocr::PageCrops;

// Keeps each crop it is given; reads it as its size, and the red of its top-left pixel.
class Recording : public docsift::ocr::LineRecognizer {
 public:
  mutable std::vector<cv::Mat> crops;
  LineText read(const cv::Mat& rgb) const override {
    crops.push_back(rgb.clone());
    const std::string text = std::to_string(rgb.cols) + "x" + std::to_string(rgb.rows) + " " +
                             std::to_string(rgb.at<cv::Vec3b>(0, 0)[0]);
    return {text, 0.5 + 0.1 * static_cast<double>(crops.size()), 0.25,
            std::vector<float>(text.size(), 0.5f)};
  }
  std::string name() const override { return "recording"; }
};

}  // namespace

TEST_CASE("page crops: a box cut with its margin, clipped to the page, read once a page") {
  cv::Mat page(200, 300, CV_8UC3, cv::Scalar(255, 255, 255));
  Recording reader;
  PageCrops crops(page, false, &reader);
  // 24 pixels high: a margin of 4 all round.
  const std::optional<LineText> first = crops.read(Box{100, 50, 160, 74});
  REQUIRE(first);
  CHECK(first->text == "68x32 255");
  REQUIRE(reader.crops.size() == 1);
  // The same box again, from the rereading or the cross-reading: the same reading, not read again.
  const std::optional<LineText> again = crops.read(Box{100, 50, 160, 74});
  REQUIRE(again);
  CHECK(again->text == first->text);
  CHECK(again->mean == first->mean);
  CHECK(reader.crops.size() == 1);
  CHECK(crops.crops_read() == 1);
  // Another box is another crop; a short one has a margin of 2 at least.
  CHECK(crops.read(Box{10, 10, 40, 16})->text == "34x10 255");
  CHECK(reader.crops.size() == 2);
  // At the page's edge the crop stops there; off the page nothing is read.
  CHECK(crops.read(Box{290, 190, 330, 214})->text == "14x14 255");
  CHECK_FALSE(crops.read(Box{400, 300, 440, 324}));
  CHECK(reader.crops.size() == 3);
  // No second recognizer: nothing read.
  PageCrops none(page, false, nullptr);
  CHECK_FALSE(none.read(Box{100, 50, 160, 74}));
}

TEST_CASE("page crops: on a page read turned, the crop is turned upright") {
  cv::Mat page(200, 300, CV_8UC3, cv::Scalar(255, 255, 255));
  const Box at{100, 50, 160, 74};                    // cut as x 96-164, y 46-78
  page.at<cv::Vec3b>(77, 163) = cv::Vec3b(7, 7, 7);  // the crop's bottom-right pixel
  Recording upright_reader, turned_reader;
  PageCrops upright(page, false, &upright_reader), turned(page, true, &turned_reader);
  CHECK(upright.read(at)->text == "68x32 255");
  CHECK(turned.read(at)->text == "68x32 7");  // turned: its bottom-right now its top-left
  CHECK(turned_reader.crops.front().at<cv::Vec3b>(31, 67)[0] == 255);
  // The page itself is left as it was: the crop is turned, not the page's pixels under it.
  CHECK(page.at<cv::Vec3b>(77, 163)[0] == 7);
  CHECK(page.at<cv::Vec3b>(46, 96)[0] == 255);
  CHECK(upright.read(Box{100, 50, 140, 74})->text == "48x32 255");  // its top-left the same
}

TEST_CASE("page crops: a value's lines read one by one and joined by a space") {
  cv::Mat page(200, 300, CV_8UC3, cv::Scalar(255, 255, 255));
  Recording reader;
  PageCrops crops(page, false, &reader);
  const std::optional<LineText> two =
      crops.read_lines({Box{10, 10, 40, 16}, Box{400, 300, 440, 324}, Box{100, 50, 160, 74}});
  REQUIRE(two);
  CHECK(two->text == "34x10 255 68x32 255");  // the box off the page gives nothing
  CHECK(two->probabilities.size() == two->text.size());
  CHECK(two->lowest == 0.25);
  // The mean is the characters': 9 at 0.6 (the first crop's) and 9 at 0.7, the space aside.
  CHECK(two->mean == doctest::Approx(0.65));
  CHECK(reader.crops.size() == 2);
  CHECK_FALSE(crops.read_lines({Box{400, 300, 440, 324}}));
}

TEST_CASE("page crops: turned the other way up later, a box is cut as now and read again") {
  cv::Mat page(200, 300, CV_8UC3, cv::Scalar(255, 255, 255));
  const Box at{100, 50, 160, 74};                    // cut as x 96-164, y 46-78
  page.at<cv::Vec3b>(77, 163) = cv::Vec3b(7, 7, 7);  // the crop's bottom-right pixel
  Recording reader;
  // The first reading read the page turned; a clearer second one upright (Engine::read).
  PageCrops crops(page, true, &reader);
  CHECK(crops.turned());
  CHECK(crops.read(at)->text == "68x32 7");
  crops.turn(false);
  CHECK_FALSE(crops.turned());
  CHECK(crops.read(at)->text == "68x32 255");  // upright: its top-left is the page's
  CHECK(reader.crops.size() == 2);
  CHECK(crops.crops_read() == 2);
  // Read once each way up.
  CHECK(crops.read(at)->text == "68x32 255");
  crops.turn(true);
  CHECK(crops.read(at)->text == "68x32 7");
  CHECK(reader.crops.size() == 2);
}
