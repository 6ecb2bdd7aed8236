// What the run needs of the model stack (LibTorch), in one place, so that a build without LibTorch
// (DOCSIFT_WITH_TORCH=OFF; docs/install.md, "Without LibTorch") compiles the rest of the run and
// reads pages with the OCR engine only. model_support.cpp is the model stack's side;
// model_support_absent.cpp, built in its place without LibTorch, refuses what needs a model with a
// ConfigError saying how to get one.
#pragma once

#include <memory>
#include <string>

#include "docsift/batch/log.h"
#include "docsift/batch/page_reader.h"
#include "docsift/config/config.h"
#include "docsift/ocr/line_recognizer.h"

namespace docsift::batch {

// Why this build cannot run a model (one sentence, for an error or a warning), or "" when it can.
std::string without_model_stack();

// The vision-language model as the run's page reader (vlm_reader.h).
std::unique_ptr<PageReader> open_model_reader(const config::Config& config, bool in_worker);

// Before the first CUDA allocation of a command that runs the model (device_setup.h): allocator
// settings, the device resolved, the memory budget. Warnings go to `log` when it is not null.
void prepare_model_device(const config::Config& config, const Log* log);

// While the returned object lives, LibTorch's own warnings (TORCH_WARN) become `log`'s lines,
// named as LibTorch's: c10 would print them as "[W ...]" lines, neither docsift's format nor JSON.
// Null without LibTorch.
struct WarningRoute {
  virtual ~WarningRoute() = default;
};
std::unique_ptr<WarningRoute> route_library_warnings(const Log& log);

// Where ocr.recognizer_model: auto finds the converted second recognizer; "" when nowhere.
std::string installed_recognizer_folder();

// ocr.recognizer_precision as the run's first line names it: "float32", "bfloat16", or bfloat16
// with a note where this CPU has no bfloat16 units (recognize/graph.h: cpu_has_bfloat16).
std::string recognizer_precision_label(const std::string& precision);

// The second text recognizer (PP-OCRv4, recognize/line_reader.h) read from its converted folder,
// its dense convolutions in `precision` (ocr.recognizer_precision: float32 or bfloat16).
std::unique_ptr<ocr::LineRecognizer> open_line_recognizer(const std::string& folder,
                                                          const std::string& precision);

}  // namespace docsift::batch
