// The per-image tier ladder: standard → offloaded_cache → reload → reload_retry → cpu (or the
// tiers memory.tiers names, in its order). Out-of-memory in any of its shapes moves the image to
// the next tier after the allocator's cache is emptied; any other error fails the image at once.
// Every attempt is recorded. Each image starts again at the first tier (or where the caller's
// memory plan says it will fit).
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/memory/cleanup.h"
#include "docsift/resilience/fault_spec.h"
#include "docsift/resilience/oom.h"

namespace docsift::resilience {

struct LadderSettings {
  std::vector<memory::Tier> tiers{memory::Tier::Standard};
  at::Device device = at::kCPU;  // the tiers on the device (memory::traits(tier).on_device)
  at::ScalarType dtype = at::kFloat;
  at::ScalarType cpu_dtype = at::kFloat;  // the tier on the host (the cpu tier)
  model::Quantization quantization = model::Quantization::None;      // device tiers (reloads too)
  model::Quantization cpu_quantization = model::Quantization::None;  // the cpu tier
  model::Float16Residual float16_residual = model::Float16Residual::Float32;
  bool fused_norm = true;
  bool decode_kernels = true;
  std::uint64_t cleanup_threshold_bytes = 1ull << 30;
  FaultPlan faults;
};

struct Attempt {
  memory::Tier tier = memory::Tier::Standard;
  int number = 1;  // 1-based within the image
  bool ok = false;
  ErrorClass error_class = ErrorClass::kOther;  // meaningful when !ok
  std::string message;
  memory::MemoryReading memory;  // at the failure, or at the end of a successful attempt
  double seconds = 0;
};

struct ImageRun {
  bool ok = false;
  memory::Tier tier = memory::Tier::Standard;  // the tier that succeeded
  generate::GenerationResult result;
  std::vector<Attempt> attempts;
  std::string error;          // why the image failed
  bool fatal = false;         // the model itself could not be loaded for a non-memory reason
  memory::DeviceMemory peak;  // device counters at the end, peaks since the image started
};

nlohmann::json to_json(const Attempt& attempt);

class Ladder {
 public:
  Ladder(family::LoadedModel& engine, LadderSettings settings);

  // Runs one image (`image` counts from 1 in processing order). `start` skips the tiers before
  // it (a memory plan's prediction); the ladder still escalates past it on out-of-memory.
  ImageRun run(int image, const family::ImageInputs& inputs, const std::vector<int32_t>& prompt,
               const generate::GenerationOptions& options,
               std::optional<memory::Tier> start = std::nullopt);

  const LadderSettings& settings() const { return settings_; }
  // Loads the model for the first tier now (a worker does it before taking images).
  void warm_up();
  // The supervisor's attempt at the images that follow (worker isolation: crash and hang
  // faults count it); 1 in process.
  void set_process_attempt(int attempt) { process_attempt_ = attempt; }

 private:
  // Where `tier` runs the model and with which numerics.
  std::pair<at::Device, model::Numerics> placement(memory::Tier tier) const;
  // Puts the model where `tier` needs it, loading its weights again when the tier's traits say
  // reloads_weights (memory/tier.h).
  void prepare(memory::Tier tier, const FaultSite& site);
  void check_fault(const FaultSite& site) const;

  family::LoadedModel& engine_;
  LadderSettings settings_;
  int process_attempt_ = 1;
};

}  // namespace docsift::resilience
