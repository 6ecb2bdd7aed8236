// The OCR engine: a page → the schema's fields, with no model weights. A PDF page's own text
// layer is used where it is usable (read_words); otherwise Tesseract reads the page image
// (reader.h). The rules (rules.h, configs/fields/ocr-rules.yaml) then turn the lines into fields.
// `run` uses it through batch::OcrReader exactly as it uses a model family: the same records,
// journal, CSV and eval.
#pragma once

#include <nlohmann/json.hpp>
#include <memory>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "docsift/ocr/calibration.h"
#include "docsift/ocr/known_names.h"
#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/reader.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/settings.h"

namespace docsift::ocr {

class Engine {
 public:
  // Loads the rules and Tesseract's language data; throws docsift::ConfigError / FileError.
  // `second`: the second recognizer for ocr.recognizer: both (batch/ makes it; none: Tesseract only).
  explicit Engine(const Settings& settings, std::unique_ptr<LineRecognizer> second = nullptr);

  struct Result {
    std::map<std::string, std::string> fields;
    std::string text;     // the page's lines as read
    std::string text_source;  // "pdf" (the page's own text layer) or "ocr"
    nlohmann::json info;  // for the record's "engine": tesseract version, confidence, preparation, checks
    std::map<std::string, double> confidence;  // per field found: rules.h's Extraction::confidence
    std::map<std::string, Evidence> evidence;  // per field found (rules.h), the second reading's marks added
    // Per field found: the calibrated probability that the value is right (calibration.h).
    std::map<std::string, double> probability;
  };
  // A page image: Tesseract, then the rules.
  Result read(const cv::Mat& rgb, const std::vector<std::string>& field_names);
  // Words that need no OCR (a PDF's text layer), with boxes in the page's own units.
  Result read_words(std::vector<Word> words, int width, int height, const std::vector<std::string>& field_names);

 private:
  Result finish(const Page& page, const std::vector<std::string>& field_names, nlohmann::json info);
  // The calibrated probabilities of the fields read, and (ocr.write_evidence) their evidence in info.
  void calibrate(Result& result) const;
  // SUPPLIER against ocr.known_sellers (known_names.h), before calibrate: the value as the list
  // spells it, or a listed name found on `page`'s lines when the value is none of them.
  void check_known_sellers(Result& result, const Page& page) const;
  // ocr.recognizer: both: each of kCrossReadFields' boxes (page pixels) cut from `rgb` and read by
  // second_, its agreement set in the evidence, and a value taken from it where cross_read.h's
  // rules allow; info's "readers" and "cross_read" say what it read.
  void cross_read(Result& result, const cv::Mat& rgb, bool turned) const;
  Rules rules_;
  KnownNames known_sellers_;
  Calibration calibration_;
  bool write_evidence_;
  DateOrderRule date_order_;
  bool second_reading_;
  std::string evened_model_;  // what the second reading reads with: the folder of its model, or "same"
  Reader reader_;
  std::unique_ptr<LineRecognizer> second_;
};

// The second reading (Engine::read), apart so that its rules are tested on records made by hand.
// A page is read again when its TOTAL or INVOICE_DATE is N/A or was read from words of mean
// confidence under kDoubtful, or its SUPPLIER N/A or read under kDoubtfulName (a statement: when
// its period or closing balance is N/A). Then each
// field is taken from the reading that read it; read differently by both, from the one whose words
// it came from were read more confidently, or from the second wherever it read a field when it is
// `clearer` (mean confidence kClearer above the first's). bench/ocr/README.md has the figures: at
// kDoubtful 35, 36 of the 200 receipts are read twice; at 50, 49 pages (before the year rule of
// values_dates.cpp) and 13% more time for one total and one seller more.
constexpr double kDoubtful = 35.0;
// A seller's name, read in a larger type that the fast model misreads more often ("SANYU STAT!"),
// is doubted higher: at 60, 7 more of the 200 receipts are read twice, in no measurable extra time,
// for 3 sellers more and 1 total fewer; on 427 more receipts, 13 pages, 4 sellers and 1 total more,
// 2 dates fewer. At 50: 2 sellers more on the 200, 1 seller more and 1 date fewer on the 427
// (bench/ocr/README.md).
constexpr double kDoubtfulName = 60.0;
constexpr double kClearer = 15.0;
bool wants_second_reading(const Engine::Result& first);
struct Taken {
  std::vector<std::string> filled;  // N/A in the first reading
  std::vector<std::string> surer;   // read differently, and more confidently, by the second
};
// Merges `second` into `first` (fields, their confidences and evidence); says what it took, and
// marks each field's evidence with what the second reading said of it.
Taken take_second_reading(Engine::Result& first, const Engine::Result& second, bool clearer);

}  // namespace docsift::ocr
