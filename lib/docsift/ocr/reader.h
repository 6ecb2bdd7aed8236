// Tesseract 5 through its C++ API: a page image → words with boxes and confidences (page.h),
// after the preparation that helped on the measured pages (bench/ocr/README.md): grey, deskewed
// (Leptonica's skew search), and turned 180° when it reads better upside down. Upscaling,
// adaptive binarisation and reading doubtful lines again on their own were measured too and left
// out as a first reading: none helped on the receipts, and each cost time. An evened-out page
// (background divided out, ink darkened), read with tessdata's larger English model where setup
// installed it, is the engine's second reading of a page whose first left its total, date or
// seller unread or doubtful (engine.h). Not thread-safe: a page at a time, on the caller's thread;
// a run that reads pages at once has a reader for each (batch/ocr_reader.h).
#pragma once

#include <memory>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "docsift/ocr/page.h"

namespace tesseract {
class TessBaseAPI;
}

namespace docsift::ocr {

struct ReaderOptions {
  std::string language = "eng";
  bool deskew = true;
  std::string segmentation = "block";  // Tesseract's page segmentation: block, auto or sparse
  // A folder of Tesseract language data for the evened reading (tessdata's larger model, which
  // misreads other digits than Debian's fast one); "" reads it with the first reading's data.
  std::string evened_data;
};

// What the preparation did to a page, for its record.
struct Prepared {
  double deskew_degrees = 0;  // rotation applied to straighten it
  bool turned = false;        // read upside down (rotated 180°)
  double scale = 1;           // 0.5: a page of more than kMaxPixels read at half size
};

// The languages of an ocr.language value, in order ("eng+deu" → eng, deu); empty names skipped.
std::vector<std::string> language_list(const std::string& languages);

// Whether `turned`, words read from a page turned 180°, read surer than `upright` by the margin a
// turned reading needs to be taken (10 points of mean confidence). Reader::read asks it of the
// middle third of a doubtful page before it reads the page turned whole: a page upside down read
// 70 to 94 there turned against 20 to 40 upright; a doubtful receipt the right way up 12 to 32
// turned against 21 to 53 (bench/ocr/README.md), and read turned whole it cost a page's reading
// for nothing.
bool surer_turned(const std::vector<Word>& upright, const std::vector<Word>& turned);

class Reader {
 public:
  // Throws docsift::FileError when Tesseract or its language data cannot be loaded, naming the
  // language and the Debian package that provides it (or the folder of `evened_data`).
  explicit Reader(const ReaderOptions& options);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // `rgb`: 8-bit, 3 channels. Word boxes are in the pixels of the page as read (deskewed, turned).
  // A doubtful reading (few words, or a low mean confidence) is tried turned 180°.
  // `evened`: the page's background evened out and its ink darkened first (page_image.h:
  // even_out), for faint thermal print, and read with `evened_data`'s model when one was given;
  // the engine's second reading.
  Page read(const cv::Mat& rgb, Prepared* prepared = nullptr, bool evened = false);

  static std::string version();
  const std::string& evened_data() const { return options_.evened_data; }

 private:
  // One language model's Tesseract instances: `upper` reads a page or its upper half, `lower` the
  // lower half of a tall page, made when first needed.
  struct Model {
    std::string datapath;  // "" for Tesseract's own
    std::unique_ptr<tesseract::TessBaseAPI> upper, lower;
  };
  Page recognise(const cv::Mat& grey, Model& model);
  // Whether the middle third of `turned` (the page's pixels turned 180°) reads surer_turned than
  // `page`'s words there; true where those are too few to compare (kDoubtfulWords).
  bool may_be_turned(const Page& page, const cv::Mat& turned, Model& model);
  ReaderOptions options_;
  Model first_;
  Model evened_;  // with evened_data only, made at the first evened reading
};

}  // namespace docsift::ocr
