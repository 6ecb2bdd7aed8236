// A second text recognizer, as the OCR engine sees it: a crop of one line in, its text out. The
// engine reads the boxes of the values it found with it again (engine.h: cross-reading) when
// ocr.recognizer is `both`. The one docsift has is PP-OCRv4's network on LibTorch
// (recognize/line_reader.h); it lives in its own layer so that ocr/ needs no LibTorch, and
// batch/ hands it over.
#pragma once

#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

namespace docsift::ocr {

struct LineText {
  std::string text;                  // UTF-8, as read
  double mean = 0;                   // mean probability of the characters read, 0..1
  double lowest = 0;                 // the least sure character's, 0..1
  std::vector<float> probabilities;  // per character of `text` (a UTF-8 sequence each), 0..1
};

class LineRecognizer {
 public:
  virtual ~LineRecognizer() = default;
  // `rgb`: 8-bit, 3 channels, one line of text. Throws docsift::Error when the network fails.
  virtual LineText read(const cv::Mat& rgb) const = 0;
  // What the record calls it ("ppocr-v4").
  virtual std::string name() const = 0;
};

}  // namespace docsift::ocr
