// One page → its record. The run sees only this interface: the vision-language model
// (vlm_reader.h), the OCR engine (ocr_reader.h), or, with memory.isolate: worker, the supervisor
// that hands the page to a worker process which reads it with one of those (supervisor.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "docsift/batch/record.h"
#include "docsift/config/config.h"

namespace docsift::io {
struct PageOptions;
}
namespace docsift::resilience {
class FaultPlan;
}

namespace docsift::batch {

struct PageRequest {
  std::filesystem::path path;
  // The path the scan resolved `path` to, which the read must find there again (io/pinned_file.h);
  // empty under --follow-links.
  std::filesystem::path real;
  int page = 0;   // 0-based, of a PDF or multi-page TIFF (0 for an image)
  int index = 1;  // counts pages from 1 in processing order (fault specs' image=)
  // Polled during generation: true abandons the page (docsift::StopRequested is thrown).
  std::function<bool()> interrupt;
  bool more = true;  // pages follow this one (a recycled worker is replaced at once only then)
};

struct PageOutcome {
  // All but file, file_bytes, config_hash and timings_s["total"], which the run sets.
  Record record;
  bool fatal = false;  // the model cannot be loaded for a reason other than memory
  std::string fatal_error;
};

class PageReader {
 public:
  virtual ~PageReader() = default;
  // Throws docsift::StopRequested when `request.interrupt` says so mid-page; everything else
  // becomes a failed record.
  virtual PageOutcome read(const PageRequest& request) = 0;
  // How many pages `read` may be given at once, each from a thread of its own, while the run's
  // thread writes the records in order and the log (batch/run.cpp); decoding stays one page at a
  // time (io/decode_lock.h). 1: one page at a time, on the run's own thread.
  virtual int pages_at_once() const { return 1; }
  // Loads what the first page needs now (a worker does it before it says it is ready).
  virtual void warm_up() {}
  // The supervisor's attempt at the next page (crash and hang faults count it).
  virtual void set_process_attempt(int /*attempt*/) {}
  virtual std::string device() const { return "cpu"; }
  virtual const resilience::FaultPlan& faults() const;  // none by default
  // What a worker reports for recycle_above_mb: bytes the caching allocator holds on a CUDA
  // device, else this process's resident set.
  virtual std::uint64_t memory_in_use() const;
};

// The reader extraction.engine names (auto: the model when model.path is set, else OCR). Reads the
// model folder and the field schema (no weights yet). Throws docsift::ConfigError / FileError when
// the run cannot start, and ConfigError for crash or hang faults outside a worker (`in_worker`).
std::unique_ptr<PageReader> open_page_reader(const config::Config& config, bool in_worker = false);

// How the run reads pages: the PDF resolution for the engine in use (config.h says why) and the
// page limit.
io::PageOptions page_options(const config::Config& config);

// An exception's first line: a record's error is one line.
std::string first_line(const std::string& what);

}  // namespace docsift::batch
