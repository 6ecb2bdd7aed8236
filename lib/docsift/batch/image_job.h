// One image → its record: decode, preprocess, prompt, memory plan, tier ladder, response parsing,
// cleanup. Owns the engine and the ladder; or, with the OCR engine (extraction.engine), reads the
// page with Tesseract and the field rules instead, into a record of the same shape. It lives in the run's own process, or, with
// memory.isolate: worker, in the worker process (batch/worker.h), which is then the only process
// that touches the device.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/record.h"
#include "docsift/config/config.h"
#include "docsift/extract/schema.h"

namespace docsift::generate {
class Engine;
}
namespace docsift::resilience {
class Ladder;
class FaultPlan;
}

namespace docsift::io {
struct PageOptions;
}

namespace docsift::batch {

// How the run reads pages: the PDF resolution for the engine in use (config.h says why) and the
// page limit.
io::PageOptions page_options(const config::Config& config);

class ImageJob {
 public:
  // Resolves the device, reads the model folder and the field schema (no weights yet). Throws
  // docsift::ConfigError / FileError when the run cannot start, and ConfigError for crash or hang
  // faults outside a worker (`in_worker`).
  explicit ImageJob(const config::Config& config, bool in_worker = false);
  ~ImageJob();

  struct Outcome {
    // All but file, file_bytes, config_hash and timings_s["total"], which the run sets.
    Record record;
    bool fatal = false;  // the model cannot be loaded for a reason other than memory
    std::string fatal_error;
  };
  // `index` counts images from 1 in processing order (fault specs' image=). Throws
  // generate::Interrupted when `interrupt` says so mid-generation; everything else becomes a
  // failed record.
  // `page`: 0-based, of a PDF or multi-page TIFF (0 for an image).
  Outcome process(const std::filesystem::path& path, int page, int index, const std::function<bool()>& interrupt);

  // Loads the model for the first tier now (a worker does it before it says it is ready).
  void warm_up();
  // The supervisor's attempt at the next image (crash and hang faults count it).
  void set_process_attempt(int attempt);
  std::string device() const;
  const resilience::FaultPlan& faults() const;
  // What the worker reports for recycle_above_mb: bytes the caching allocator holds on a CUDA
  // device, else this process's resident set.
  std::uint64_t memory_in_use() const;

 private:
  Outcome process_ocr(const std::filesystem::path& path, int page);
  struct State;
  struct OcrState;
  std::unique_ptr<State> s_;       // the vision-language model
  std::unique_ptr<OcrState> ocr_;  // or the OCR engine
};

}  // namespace docsift::batch
