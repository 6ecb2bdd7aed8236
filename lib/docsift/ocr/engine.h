// The OCR engine: a page image → the schema's fields, with no model weights. Tesseract reads the
// page (reader.h), the rules (rules.h, configs/fields/ocr-rules.yaml) turn its lines into fields.
// `run` uses it through batch::ImageJob exactly as it uses a model family: the same records,
// journal, CSV and eval.
#pragma once

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "docsift/config/config.h"
#include "docsift/ocr/reader.h"
#include "docsift/ocr/rules.h"

namespace docsift::ocr {

class Engine {
 public:
  // Loads the rules and Tesseract's language data; throws docsift::ConfigError / FileError.
  explicit Engine(const config::OcrConfig& config);

  struct Result {
    std::map<std::string, std::string> fields;
    std::string text;   // the page's lines as read
    nlohmann::json info;  // for the record's "engine": tesseract version, confidence, preparation, checks
  };
  Result read(const cv::Mat& rgb, const std::vector<std::string>& field_names);

 private:
  Rules rules_;
  Reader reader_;
};

}  // namespace docsift::ocr
