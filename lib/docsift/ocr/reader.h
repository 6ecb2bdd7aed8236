// Tesseract 5 through its C++ API: a page image → words with boxes and confidences (page.h),
// after the preparation that helped on the measured pages (bench/ocr/README.md): grey, deskewed
// (Leptonica's skew search), and turned 180° when it reads better upside down. Upscaling,
// adaptive binarisation and reading doubtful lines again on their own were measured too and left
// out as a first reading: none helped on the receipts, and each cost time. An evened-out page
// (background divided out, ink darkened) is the engine's second reading of a page whose first
// left its total or date unread (engine.h). One reader per process; not thread-safe
// (it runs its own second thread for the lower half of a tall page).
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
  std::string segmentation = "block";  // Tesseract's page segmentation: block, auto or sparse
  int threads = 2;                     // 2: a tall page is read as two halves on two threads
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

  // `rgb`: 8-bit, 3 channels. Word boxes are in the pixels of the page as read (deskewed, turned).
  // `evened`: the page's background evened out and its ink darkened first (even_out in
  // reader.cpp), for faint thermal print; the engine's second reading.
  Page read(const cv::Mat& rgb, Prepared* prepared = nullptr, bool evened = false);

  static std::string version();

 private:
  Page recognise(const cv::Mat& grey);
  ReaderOptions options_;
  std::unique_ptr<tesseract::TessBaseAPI> api_;
  std::unique_ptr<tesseract::TessBaseAPI> second_;  // the lower half of a tall page, made when first needed
};

}  // namespace docsift::ocr
