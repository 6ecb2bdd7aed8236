#pragma once

#include <optional>
#include <string>

namespace docsift::ocr {

// The OCR engine's settings (the ocr.* keys; extraction.engine: ocr): Tesseract's language data and
// the field rules.
struct Settings {
  std::string language = "eng";             // Tesseract language(s), e.g. eng or eng+deu
  std::string rules = "builtin:ocr-rules";  // or a file in configs/fields/ocr-rules.yaml's layout
  bool deskew = true;                       // straighten a skewed scan before reading it
  std::string page_segmentation = "block";  // block, auto or sparse (Tesseract's PSM 6, 3, 11)
  std::optional<int> threads;       // pages read at once; nullopt: auto (batch/ocr_reader.h)
  std::string date_order = "auto";  // auto, dmy or mdy (ocr/rules.h: DateOrderRule)
  bool pdf_text = true;             // read a PDF's text layer where it is usable
  bool second_reading = true;  // a page with TOTAL, INVOICE_DATE or SUPPLIER unread or doubtful is
                               // read again, evened out
  // The second reading's language data: auto (tessdata's larger model where scripts/setup.sh put
  // it, else the first reading's), none (the first reading's), or a folder of .traineddata files.
  std::string evened_model = "auto";
  // The calibrated confidences' parameters (calibration.h): builtin:ocr-calibration or a file in
  // configs/fields/ocr-calibration.yaml's layout.
  std::string calibration = "builtin:ocr-calibration";
  // A file of sellers' names, one per line (known_names.h): a seller read close to one is written
  // as the list spells it, and one the rules missed is looked for on the page. "" for none.
  std::string known_sellers;
  // tesseract, or both: the values' boxes read again by a second, trained recognizer
  // (line_recognizer.h), where one was found; the engine says so once when none was. auto (the
  // default) is resolved by config::load: both where the second recognizer is installed.
  std::string recognizer = "auto";
  std::string recognizer_model = "auto";  // auto (where scripts/setup.sh converted it) or a folder
  // How the second recognizer's dense convolutions multiply (recognize/graph.h: Precision):
  // float32 (the default) or bfloat16 (faster where the CPU multiplies it in hardware, and
  // readings a little different: docs/ocr.md).
  std::string recognizer_precision = "float32";
  // The trained field finder's weights (finder.h): builtin:ocr-finder or a file in
  // configs/fields/ocr-finder.yaml's layout.
  std::string finder = "builtin:ocr-finder";
  bool write_evidence =
      false;  // the record's engine.evidence: each field's raw evidence, for refitting
  // Once every page of a run is read, a seller's name or address one page alone read within one
  // misread per 8 letters of what two or more other pages read alike is written as they spell it
  // (batch/agreement.h).
  bool batch_spelling = true;
};

}  // namespace docsift::ocr
