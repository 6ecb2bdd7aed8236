// The vision-language model as a page reader: decode, preprocess, prompt, memory plan, the tier
// ladder, response parsing, cleanup (docs/memory.md). Owns the loaded model and the ladder. It
// lives in the run's own process, or, with memory.isolate: worker, in the worker process
// (worker_main.h), which is then the only process that touches the device.
#pragma once

#include <memory>

#include "docsift/batch/page_reader.h"

namespace docsift::batch {

class VlmReader final : public PageReader {
 public:
  // Resolves the device, reads the model folder and the field schema (no weights yet).
  VlmReader(const config::Config& config, bool in_worker);
  ~VlmReader() override;
  PageOutcome read(const PageRequest& request) override;
  void warm_up() override;
  void set_process_attempt(int attempt) override;
  std::string device() const override;
  const resilience::FaultPlan& faults() const override;
  std::uint64_t memory_in_use() const override;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace docsift::batch
