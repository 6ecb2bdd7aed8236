// One page's image as the second recognizer cuts it (engine.h: ocr.recognizer both), and what it
// has read of it: a box is read once a page (a price the rereading read is read again by the
// cross-reading: 6 of 207 crops over 20 receipts were a box read twice), each crop keyed by the
// rectangle cut and the way up it was read.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <vector>

#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/page.h"

namespace docsift::ocr {

class PageCrops {
 public:
  // `rgb`: the page as given, 8-bit, 3 channels, outliving this; `turned`: the page was read turned
  // 180 degrees, so a crop is cut from the page as given and turned upright; `reader`: the second
  // recognizer, or null (nothing is read).
  PageCrops(const cv::Mat& rgb, bool turned, const LineRecognizer* reader)
      : rgb_(rgb), turned_(turned), reader_(reader) {}

  // The reading of box `at` (page pixels) with a sixth of its height around it (at least 2 pixels:
  // the recognizer was trained on lines cut with a margin), clipped to the page; read once, the
  // same reading after. Nullopt when the box is off the page or there is no reader.
  std::optional<LineText> read(const Box& at);
  // A value's lines (Evidence::parts), each read alone (the recognizer reads one line) and the
  // readings joined by a space (probability 1); the mean and the lowest are their characters'.
  // Nullopt when no line gave a character.
  std::optional<LineText> read_lines(const std::vector<Box>& lines);
  // How many crops the reader was given this page.
  std::size_t crops_read() const { return read_.size(); }
  // The page's way up from now on: where a clearer second reading read it the other way up than
  // the first (Engine::read), the crops are cut as that one read it; a box read before is read
  // again, turned as now.
  void turn(bool turned) { turned_ = turned; }
  bool turned() const { return turned_; }

 private:
  const cv::Mat& rgb_;
  bool turned_;
  const LineRecognizer* reader_;
  // {x, y, width, height, turned} → reading
  std::map<std::array<int, 5>, std::optional<LineText>> read_;
};

}  // namespace docsift::ocr
