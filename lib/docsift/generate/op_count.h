// How many LibTorch operators one decode step dispatches, counted with a RecordFunction callback:
// the host-side work per step that CUDA graphs and fused projections would remove (docs/gpu.md).
// Every dispatcher call counts, nested ones included (linear → addmm), as each costs host time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/generate/generate.h"

namespace docsift::generate {

class OpCounter {
 public:
  OpCounter();  // starts listening; counts only between the decode steps' hooks
  ~OpCounter();
  OpCounter(const OpCounter&) = delete;
  OpCounter& operator=(const OpCounter&) = delete;

  // Chain into GenerationOptions::before_stage: decode steps from the second on are counted (the
  // first also sizes buffers), up to the end of generation.
  void on_stage(Stage stage, int step);
  // Stops counting; {"decode_steps_counted", "ops_per_step", "host_reads_per_step" (reads of a
  // tensor's value on the host, aten::_local_scalar_dense: device syncs on a GPU), "distinct_ops",
  // "top": [{name, per_step}...]}.
  nlohmann::json report(int top = 12);

  struct State;  // public only for the RecordFunction callback, a plain function

 private:
  std::unique_ptr<State> s_;
};

}  // namespace docsift::generate
