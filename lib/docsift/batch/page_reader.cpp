#include "docsift/batch/page_reader.h"

#include "docsift/batch/model_support.h"
#include "docsift/batch/ocr_reader.h"
#include "docsift/io/pages.h"
#include "docsift/memory/host.h"
#include "docsift/resilience/fault_spec.h"

namespace docsift::batch {

const resilience::FaultPlan& PageReader::faults() const {
  static const resilience::FaultPlan none;
  return none;
}

std::uint64_t PageReader::memory_in_use() const { return memory::read_host_memory().rss_bytes; }

std::unique_ptr<PageReader> open_page_reader(const config::Config& config, bool in_worker) {
  if (config.extraction.engine == config::Engine::Ocr) return std::make_unique<OcrReader>(config);
  return open_model_reader(config, in_worker);
}

io::PageOptions page_options(const config::Config& c) {
  io::PageOptions o;
  o.pdf_dpi = c.input.pdf_dpi.value_or(c.extraction.engine == config::Engine::Ocr ? 300 : 160);
  o.max_pages = c.input.max_pages;
  o.limits.accept_truncated = c.input.accept_truncated;
  return o;
}

std::string first_line(const std::string& what) { return what.substr(0, what.find('\n')); }

}  // namespace docsift::batch
