// Tesseract 5 through its C++ API: a page image → words with boxes and confidences (page.h),
// after the preparation that helped on the measured pages (bench/README.md): grey, deskewed, and
// turned 180° when it reads better upside down. Upscaling small text was measured too and left
// out: it did not help (0.979 → 0.975 on samples/, 0.967 either way on the unseen set) and cost
// time. One reader per process; not thread-safe.
#pragma once

#include <memory>
#include <opencv2/core/mat.hpp>
#include <string>

#include "docsift/ocr/page.h"

namespace tesseract {
class TessBaseAPI;
}

namespace docsift::ocr {

struct ReaderOptions {
  std::string language = "eng";
  bool deskew = true;
};

// What the preparation did to a page, for its record.
struct Prepared {
  double deskew_degrees = 0;   // rotation applied to straighten it
  bool turned = false;         // read upside down (rotated 180°)
};

class Reader {
 public:
  // Throws docsift::FileError when Tesseract or its language data cannot be loaded, naming the
  // language and the Debian package that provides it.
  explicit Reader(const ReaderOptions& options);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // `rgb`: 8-bit, 3 channels. Word boxes are in the original image's pixels.
  Page read(const cv::Mat& rgb, Prepared* prepared = nullptr);

  static std::string version();

 private:
  Page recognise(const cv::Mat& grey);
  ReaderOptions options_;
  std::unique_ptr<tesseract::TessBaseAPI> api_;
};

}  // namespace docsift::ocr
