// The OCR engine: a page → the schema's fields, with no model weights. A PDF page's own text
// layer is used where it is usable (read_words); otherwise Tesseract reads the page image
// (reader.h). The rules (rules.h, configs/fields/ocr-rules.yaml) then turn the lines into fields.
// `run` uses it through batch::OcrReader exactly as it uses a model family: the same records,
// journal, CSV and eval.
#pragma once

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "docsift/ocr/reader.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/settings.h"

namespace docsift::ocr {

class Engine {
 public:
  // Loads the rules and Tesseract's language data; throws docsift::ConfigError / FileError.
  explicit Engine(const Settings& settings);

  struct Result {
    std::map<std::string, std::string> fields;
    std::string text;     // the page's lines as read
    std::string text_source;  // "pdf" (the page's own text layer) or "ocr"
    nlohmann::json info;  // for the record's "engine": tesseract version, confidence, preparation, checks
  };
  // A page image: Tesseract, then the rules.
  Result read(const cv::Mat& rgb, const std::vector<std::string>& field_names);
  // Words that need no OCR (a PDF's text layer), with boxes in the page's own units.
  Result read_words(std::vector<Word> words, int width, int height, const std::vector<std::string>& field_names);

 private:
  Result finish(const Page& page, const std::vector<std::string>& field_names, nlohmann::json info);
  Rules rules_;
  DateOrderRule date_order_;
  bool second_reading_;
  Reader reader_;
};

}  // namespace docsift::ocr
