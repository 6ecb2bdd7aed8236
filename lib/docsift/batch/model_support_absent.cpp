// model_support.h in a build without LibTorch (DOCSIFT_WITH_TORCH=OFF): the OCR engine reads every
// page; a model or the second recognizer is refused with what to do instead.
#include "docsift/batch/model_support.h"

#include "docsift/error.h"

namespace docsift::batch {

std::string without_model_stack() {
  return "this docsift was built without LibTorch (DOCSIFT_WITH_TORCH=OFF) and reads pages with "
         "the OCR engine only";
}

std::unique_ptr<PageReader> open_model_reader(const config::Config& config, bool /*in_worker*/) {
  throw ConfigError("model " + config.model.path + ": " + without_model_stack() +
                    "; drop --model and model.path, or build with scripts/setup.sh for the models");
}

std::unique_ptr<WarningRoute> route_library_warnings(const Log& /*log*/) {
  return nullptr;
}  // no LibTorch to hear

void prepare_model_device(const config::Config& /*config*/, const Log* /*log*/) {
}  // nothing to set up

std::string installed_recognizer_folder() { return ""; }

std::string recognizer_precision_label(const std::string& precision) { return precision; }

std::unique_ptr<ocr::LineRecognizer> open_line_recognizer(const std::string& folder,
                                                          const std::string& /*precision*/) {
  throw ConfigError("ocr.recognizer_model " + folder + ": " + without_model_stack() +
                    " and Tesseract; set ocr.recognizer: tesseract, or build with scripts/setup.sh "
                    "for the second recognizer");
}

}  // namespace docsift::batch
