#include "docsift/ocr/reader.h"

#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "docsift/error.h"

namespace docsift::ocr {
namespace {

// A page reads upside down when it yields few words or little confidence; then 180° is tried.
constexpr double kDoubtfulConfidence = 60.0;
constexpr int kDoubtfulWords = 5;
// Skew below this is left alone: rotating resamples the text, which costs more than it gains.
constexpr double kMinDeskewDegrees = 0.3;

cv::Mat rotate(const cv::Mat& grey, double degrees) {
  const cv::Point2f center(static_cast<float>(grey.cols) / 2.0f, static_cast<float>(grey.rows) / 2.0f);
  const cv::Mat m = cv::getRotationMatrix2D(center, degrees, 1.0);
  cv::Mat out;
  cv::warpAffine(grey, out, m, grey.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(255));
  return out;
}

}  // namespace

Reader::Reader(const ReaderOptions& options) : options_(options), api_(std::make_unique<tesseract::TessBaseAPI>()) {
  // Tesseract's own messages (resolution guesses, "Empty page!!") go nowhere: docsift reports.
  api_->SetVariable("debug_file", "/dev/null");
  if (api_->Init(nullptr, options.language.c_str(), tesseract::OEM_LSTM_ONLY) != 0) {
    throw FileError("ocr.language " + options.language + ": Tesseract cannot load its language data (" +
                    std::string(api_->GetDatapath() ? api_->GetDatapath() : "?") +
                    "); install it (Debian: tesseract-ocr-" + options.language.substr(0, options.language.find('+')) +
                    ") or set TESSDATA_PREFIX");
  }
  api_->SetPageSegMode(tesseract::PSM_AUTO);
}

Reader::~Reader() {
  if (api_) api_->End();
}

std::string Reader::version() { return tesseract::TessBaseAPI::Version(); }

Page Reader::recognise(const cv::Mat& grey) {
  api_->SetImage(grey.data, grey.cols, grey.rows, 1, static_cast<int>(grey.step));
  api_->SetSourceResolution(300);
  std::vector<Word> words;
  if (api_->Recognize(nullptr) == 0) {
    std::unique_ptr<tesseract::ResultIterator> it(api_->GetIterator());
    constexpr auto kLevel = tesseract::RIL_WORD;
    if (it) {
      do {
        const std::unique_ptr<char[]> text(it->GetUTF8Text(kLevel));
        if (!text || text[0] == '\0') continue;
        int l = 0, t = 0, r = 0, b = 0;
        if (!it->BoundingBox(kLevel, &l, &t, &r, &b)) continue;
        words.push_back({text.get(), {l, t, r, b}, it->Confidence(kLevel)});
      } while (it->Next(kLevel));
    }
  }
  api_->Clear();
  return layout_page(std::move(words), grey.cols, grey.rows);
}

Page Reader::read(const cv::Mat& rgb, Prepared* prepared) {
  Prepared done;
  cv::Mat grey;
  cv::cvtColor(rgb, grey, cv::COLOR_RGB2GRAY);
  Page page = recognise(grey);
  // Skew: the angle of the text lines, from the word boxes' baselines along each line.
  if (options_.deskew && !page.lines.empty()) {
    std::vector<double> angles;
    for (const auto& line : page.lines) {
      if (line.words.size() < 3) continue;
      const auto& a = line.words.front().box;
      const auto& b = line.words.back().box;
      if (b.right - a.left < page.width / 4) continue;
      angles.push_back(std::atan2(static_cast<double>(b.bottom - a.bottom), static_cast<double>(b.right - a.left)) *
                       180.0 / M_PI);
    }
    if (angles.size() >= 3) {
      std::nth_element(angles.begin(), angles.begin() + static_cast<long>(angles.size() / 2), angles.end());
      const double skew = angles[angles.size() / 2];
      if (std::abs(skew) >= kMinDeskewDegrees && std::abs(skew) <= 10.0) {
        page = recognise(rotate(grey, skew));
        done.deskew_degrees = skew;
      }
    }
  }
  // Upside down: a doubtful reading is tried turned 180°, and the better one kept.
  if (page.words() < kDoubtfulWords || page.mean_confidence < kDoubtfulConfidence) {
    cv::Mat turned;
    cv::rotate(grey, turned, cv::ROTATE_180);
    Page other = recognise(turned);
    if (other.words() >= kDoubtfulWords && other.mean_confidence > page.mean_confidence + 10) {
      page = std::move(other);
      done.turned = true;
    }
  }
  if (prepared) *prepared = done;
  return page;
}

}  // namespace docsift::ocr
