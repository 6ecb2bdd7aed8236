#include "docsift/ocr/reader.h"

#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/ocr/page_image.h"

namespace docsift::ocr {
namespace {

// A page reads upside down when it yields few words or little confidence; then 180° is tried.
// Turned over, a sample and a receipt read at a mean confidence near 40; upright receipts at 39 to
// 95 (bench/ocr/README.md), so the threshold (60 before the receipts were measured) spares most of
// them a second reading.
constexpr double kDoubtfulConfidence = 45.0;
constexpr int kDoubtfulWords = 5;
// How much surer (mean word confidence) a reading turned 180° must be to be taken.
constexpr double kTurnedMargin = 10.0;
// Skew below this is left alone: rotating resamples the text, which costs more than it gains.
constexpr double kMinDeskewDegrees = 0.3;
// A page of more pixels than this is read at half size. Tesseract reads text best at about 300
// dpi (its LSTM scales each line to a fixed height anyway); an A4 page scanned at 600 dpi (35
// megapixels) spent most of its time on layout analysis of pixels that add nothing, and read
// fewer fields than halved (bench/ocr/README.md: the 21 largest receipts, 20 of them halved, in 15
// s against 23 s). A 12- or 16-megapixel phone photo is left as it is: a receipt fills only part of
// it.
constexpr double kMaxPixels = 20e6;

// bench/ocr/README.md: one uniform block read receipts best; the automatic layout analysis split
// their amount column from its labels.
tesseract::PageSegMode segmentation_mode(const ReaderOptions& options) {
  return options.segmentation == "auto"     ? tesseract::PSM_AUTO
         : options.segmentation == "sparse" ? tesseract::PSM_SPARSE_TEXT
                                            : tesseract::PSM_SINGLE_BLOCK;
}

// `datapath`: a folder of language data, or "" for Tesseract's own (TESSDATA_PREFIX, else the
// Debian package's).
std::unique_ptr<tesseract::TessBaseAPI> open_tesseract(const ReaderOptions& options,
                                                       const std::string& datapath) {
  auto api = std::make_unique<tesseract::TessBaseAPI>();
  // Tesseract's own messages (resolution guesses, "Empty page!!") and Leptonica's ("Error in
  // boxClipToRectangle: box outside rectangle") go nowhere: docsift reports what matters itself.
  api->SetVariable("debug_file", "/dev/null");
  setMsgSeverity(L_SEVERITY_NONE);
  if (api->Init(datapath.empty() ? nullptr : datapath.c_str(), options.language.c_str(),
                tesseract::OEM_LSTM_ONLY) != 0) {
    if (!datapath.empty()) {
      throw FileError(
          "ocr.evened_model " + datapath + ": Tesseract cannot load its " + options.language +
          " language data (" + datapath + "/" +
          options.language.substr(0, options.language.find('+')) +
          ".traineddata); run scripts/setup.sh, or set ocr.evened_model to auto or none");
    }
    throw FileError(
        "ocr.language " + options.language + ": Tesseract cannot load its language data (" +
        std::string(api->GetDatapath() ? api->GetDatapath() : "?") +
        "); install it (Debian: tesseract-ocr-" +
        options.language.substr(0, options.language.find('+')) + ") or set TESSDATA_PREFIX");
  }
  // Tesseract loads the languages it finds and only warns about the others ("eng+xyz" reads as
  // eng): a language asked for and not loaded is named now, before the first page.
  std::vector<std::string> loaded;
  api->GetLoadedLanguagesAsVector(&loaded);
  for (const std::string& wanted : language_list(options.language)) {
    if (std::find(loaded.begin(), loaded.end(), wanted) == loaded.end()) {
      throw ConfigError(
          "ocr.language " + options.language + ": Tesseract has no language data for '" + wanted +
          "' (" + std::string(api->GetDatapath() ? api->GetDatapath() : "?") +
          "); install it (Debian: tesseract-ocr-" + wanted + ") or remove it from ocr.language");
    }
  }
  api->SetPageSegMode(segmentation_mode(options));
  // Tesseract 5 reads each line under 70% confidence a second time inverted (white on black):
  // on receipts, where faint lines are many, that cost 4% of the time and lost no field when
  // turned off (bench/ocr/README.md). A page printed white on black reads worse.
  api->SetVariable("tessedit_do_invert", "0");
  return api;
}

// Words of `grey` (a view into the page, `top` rows down) read by `api`, in page coordinates.
std::vector<Word> read_words(tesseract::TessBaseAPI& api, const cv::Mat& grey, int top) {
  api.SetImage(grey.data, grey.cols, grey.rows, 1, static_cast<int>(grey.step));
  api.SetSourceResolution(300);
  std::vector<Word> words;
  if (api.Recognize(nullptr) == 0) {
    std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
    constexpr auto kLevel = tesseract::RIL_WORD;
    if (it) {
      do {
        const std::unique_ptr<char[]> text(it->GetUTF8Text(kLevel));
        if (!text || text[0] == '\0') continue;
        int l = 0, t = 0, r = 0, b = 0;
        if (!it->BoundingBox(kLevel, &l, &t, &r, &b)) continue;
        words.push_back({text.get(), {l, t + top, r, b + top}, it->Confidence(kLevel)});
      } while (it->Next(kLevel));
    }
  }
  api.Clear();
  return words;
}

}  // namespace

Reader::Reader(const ReaderOptions& options) : options_(options) {
  first_.upper = open_tesseract(options_, "");
  evened_.datapath = options_.evened_data;
}

Reader::~Reader() {
  for (Model* model : {&first_, &evened_}) {
    if (model->upper) model->upper->End();
    if (model->lower) model->lower->End();
  }
}

std::string Reader::version() { return tesseract::TessBaseAPI::Version(); }

Page Reader::recognise(const cv::Mat& grey, Model& model) {
  // A tall page (a receipt) is read as two halves, cut at a blank band: Tesseract reads them better
  // than the whole (the 200 receipts' TOTAL 0.935 against 0.905, SUPPLIER 0.870 against 0.830;
  // bench/ocr/README.md). Each half has its own instance, made at the first tall page, so that
  // what one has read never bears on the other. The halves are read one after the other: a run
  // reads pages at once instead (batch/ocr_reader.h).
  constexpr int kTallRows = 1200;
  const int cut = grey.rows >= kTallRows ? blank_row_near_middle(grey) : 0;
  if (!model.upper) model.upper = open_tesseract(options_, model.datapath);
  if (cut == 0) return layout_page(read_words(*model.upper, grey, 0), grey.cols, grey.rows);
  if (!model.lower) model.lower = open_tesseract(options_, model.datapath);
  std::vector<Word> words = read_words(*model.upper, grey.rowRange(0, cut), 0);
  std::vector<Word> lower = read_words(*model.lower, grey.rowRange(cut, grey.rows), cut);
  words.insert(words.end(), std::make_move_iterator(lower.begin()),
               std::make_move_iterator(lower.end()));
  return layout_page(std::move(words), grey.cols, grey.rows);
}

std::vector<std::string> language_list(const std::string& languages) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= languages.size();) {
    std::size_t end = languages.find('+', start);
    if (end == std::string::npos) end = languages.size();
    if (end > start) out.push_back(languages.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool surer_turned(const std::vector<Word>& upright, const std::vector<Word>& turned) {
  return !turned.empty() && mean_confidence(turned) > mean_confidence(upright) + kTurnedMargin;
}

bool Reader::may_be_turned(const Page& page, const cv::Mat& turned, Model& model) {
  // The band is symmetric about the page's middle: the same rows upright and turned.
  const int top = turned.rows / 3, bottom = turned.rows - top;
  const std::vector<Word> upright = words_between(page, top, bottom);
  if (upright.size() < kDoubtfulWords) return true;  // too few to compare: the page is tried
  return surer_turned(upright, read_words(*model.upper, turned.rowRange(top, bottom), top));
}

Page Reader::read(const cv::Mat& rgb, Prepared* prepared, bool evened) {
  Prepared done;
  cv::Mat grey;
  cv::cvtColor(rgb, grey, cv::COLOR_RGB2GRAY);
  while (static_cast<double>(grey.total()) > kMaxPixels) {
    cv::resize(grey, grey, cv::Size(grey.cols / 2, grey.rows / 2), 0, 0, cv::INTER_AREA);
    done.scale /= 2;
  }
  // Skew, measured on the pixels before reading (Leptonica's projection search, a few ms), so
  // the page is read once; measuring it from a first reading's baselines cost a second one.
  if (options_.deskew) {
    if (const auto angle = find_skew(grey);
        angle && std::abs(*angle) >= kMinDeskewDegrees && std::abs(*angle) <= 10.0) {
      grey = rotate(grey, -*angle);
      done.deskew_degrees = -*angle;
    }
  }
  grey = without_rules(grey);
  if (evened) grey = even_out(grey);
  Model& model = evened && !evened_.datapath.empty() ? evened_ : first_;
  Page page = recognise(grey, model);
  // Upside down: a doubtful reading is tried turned 180°, and the better one kept.
  if (page.words() < kDoubtfulWords || page.mean_confidence < kDoubtfulConfidence) {
    cv::Mat turned;
    cv::rotate(grey, turned, cv::ROTATE_180);
    if (may_be_turned(page, turned, model)) {
      Page other = recognise(turned, model);
      if (other.words() >= kDoubtfulWords &&
          other.mean_confidence > page.mean_confidence + kTurnedMargin) {
        page = std::move(other);
        done.turned = true;
      }
    }
  }
  if (prepared) *prepared = done;
  return page;
}

}  // namespace docsift::ocr
