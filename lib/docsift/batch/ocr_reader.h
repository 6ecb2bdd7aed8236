// The OCR engine as a page reader (docs/ocr.md): a PDF page's own text layer where it is usable,
// else Tesseract on the rendered page, then the field rules. No device, no ladder, no weights.
#pragma once

#include <memory>
#include <string>

#include "docsift/batch/page_reader.h"

namespace docsift::batch {

// Why ocr.recognizer: both will read with Tesseract alone (no converted model where auto looks),
// for run's log, once; "" when it will not.
std::string missing_recognizer(const config::Config& config);

// Whether the second recognizer can be opened from `recognizer_model` (auto: where scripts/setup.sh
// converted it) in this build: config::Abilities for ocr.recognizer: auto.
bool second_recognizer_available(const std::string& recognizer_model);

// What reads the pages, for the run's first line: Tesseract and PP-OCRv4's recognizer, or
// "Tesseract alone" and why (this build has no LibTorch; none converted; ocr.recognizer:
// tesseract).
std::string ocr_readers(const config::Config& config);

// ocr.threads pages at once (pages_at_once), each read with an engine of its own
// (Tesseract's instances and the recognizer are not shared): a page reads the same whichever engine
// reads it and whatever else is read meanwhile, so the outputs do not depend on ocr.threads.
class OcrReader final : public PageReader {
 public:
  explicit OcrReader(const config::Config& config);
  ~OcrReader() override;
  PageOutcome read(const PageRequest& request) override;
  int pages_at_once() const override;

 private:
  struct State;
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace docsift::batch
