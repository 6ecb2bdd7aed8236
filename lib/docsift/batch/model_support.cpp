#include "docsift/batch/model_support.h"

#include <c10/util/Exception.h>

#include <utility>

#include "docsift/batch/device_setup.h"
#include "docsift/batch/vlm_reader.h"
#include "docsift/error.h"
#include "docsift/recognize/line_reader.h"

namespace docsift::batch {
namespace {

// PP-OCRv4's recognizer (recognize/line_reader.h) as the engine's second reader of lines.
class PaddleLines final : public ocr::LineRecognizer {
 public:
  PaddleLines(const std::string& folder, recognize::Precision precision)
      : reader_(folder, true, precision),
        precision_(precision),
        warnings_(c10::WarningUtils::get_warning_handler()) {}
  ocr::LineText read(const cv::Mat& rgb) const override {
    // Pages are read on threads of their own (ocr.threads), where LibTorch's warnings would go to
    // c10's own handler ("[W ...]" on stderr): they go where the thread that opened the reader
    // sends them, the run's log (route_library_warnings).
    const c10::WarningUtils::WarningHandlerGuard route(warnings_);
    recognize::LineReading r = reader_.read(rgb);
    return {std::move(r.text), r.mean, r.lowest, std::move(r.probabilities)};
  }
  // The record names the precision where it is not float32's: such readings differ in a few
  // letters (docs/ocr.md).
  std::string name() const override {
    return precision_ == recognize::Precision::BFloat16 ? "ppocr-v4 bfloat16" : "ppocr-v4";
  }

 private:
  recognize::LineReader reader_;
  recognize::Precision precision_;
  c10::WarningHandler* warnings_;
};

class LogWarnings final : public c10::WarningHandler, public WarningRoute {
 public:
  explicit LogWarnings(const Log& log) : log_(log), guard_(this) {}
  void process(const c10::Warning& warning) override {
    const std::string& text = warning.msg();
    log_.warning("libtorch", "LibTorch: " + text.substr(0, text.find('\n')));
  }

 private:
  const Log& log_;
  c10::WarningUtils::WarningHandlerGuard guard_;
};

}  // namespace

std::unique_ptr<WarningRoute> route_library_warnings(const Log& log) {
  return std::make_unique<LogWarnings>(log);
}

std::string without_model_stack() { return ""; }

std::unique_ptr<PageReader> open_model_reader(const config::Config& config, bool in_worker) {
  return std::make_unique<VlmReader>(config, in_worker);
}

void prepare_model_device(const config::Config& config, const Log* log) {
  // The OCR engine runs on the CPU and never asks for a device, in a worker too.
  if (config.extraction.engine == config::Engine::Ocr) return;
  (void)start_device(config, log);
}

std::string installed_recognizer_folder() { return recognize::LineReader::installed_folder(); }

std::string recognizer_precision_label(const std::string& precision) {
  if (precision == "bfloat16" && !recognize::cpu_has_bfloat16())
    return "bfloat16, converted: this CPU has no bfloat16 units, so it is likely slower than "
           "float32";
  return precision;
}

std::unique_ptr<ocr::LineRecognizer> open_line_recognizer(const std::string& folder,
                                                          const std::string& precision) {
  if (precision == "bfloat16" && !recognize::cpu_runs_bfloat16())
    throw ConfigError(
        "ocr.recognizer_precision bfloat16: this CPU has no AVX-512 (BW, VL and DQ), which "
        "LibTorch's bfloat16 convolutions need; set it to float32");
  return std::make_unique<PaddleLines>(folder, precision == "bfloat16"
                                                   ? recognize::Precision::BFloat16
                                                   : recognize::Precision::Float32);
}

}  // namespace docsift::batch
