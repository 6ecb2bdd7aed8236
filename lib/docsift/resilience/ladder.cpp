#include "docsift/resilience/ladder.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <chrono>

#include "docsift/error.h"
#include "docsift/model/precision.h"

namespace docsift::resilience {
namespace {

FaultPoint point_of(generate::Stage stage) {
  switch (stage) {
    case generate::Stage::kVision:
      return FaultPoint::kVision;
    case generate::Stage::kPrefill:
      return FaultPoint::kPrefill;
    case generate::Stage::kDecode:
      return FaultPoint::kDecode;
    case generate::Stage::kExtend:
      return FaultPoint::kExtend;
  }
  return FaultPoint::kPrefill;
}

}  // namespace

nlohmann::json to_json(const Attempt& a) {
  nlohmann::json j = {{"tier", std::string(to_string(a.tier))},
                      {"attempt", a.number},
                      {"ok", a.ok},
                      {"seconds", a.seconds},
                      {"memory", memory::to_json(a.memory)}};
  if (!a.ok) {
    j["error_class"] = std::string(to_string(a.error_class));
    j["message"] = a.message;
  }
  return j;
}

Ladder::Ladder(family::LoadedModel& engine, LadderSettings settings)
    : engine_(engine), settings_(std::move(settings)) {
  if (settings_.tiers.empty()) throw ConfigError("memory.tiers is empty: name at least one tier");
}

void Ladder::check_fault(const FaultSite& at) const {
  FaultSite site = at;
  site.process_attempt = process_attempt_;
  const FaultSpec* spec = settings_.faults.match(site);
  if (spec == nullptr) return;
  if (spec->kind != FaultKind::kOom) fire_process_fault(*spec);  // crash or hang (worker only)
  // The allocator's own exception type, so the code under test cannot tell it from a real one.
  throw c10::OutOfMemoryError(
      c10::SourceLocation{__func__, __FILE__, static_cast<uint32_t>(__LINE__)},
      "CUDA out of memory. Tried to allocate 2.00 GiB (injected by DOCSIFT_FAULTS spec \"" +
          spec->text + "\" at " + std::string(to_string(site.point)) + ", image " +
          std::to_string(site.image) + ", tier " +
          std::string(site.tier ? to_string(*site.tier) : "none") + ", attempt " +
          std::to_string(site.attempt) +
          (site.step > 0 ? ", step " + std::to_string(site.step) : std::string()) + ")");
}

std::pair<at::Device, model::Numerics> Ladder::placement(memory::Tier tier) const {
  const bool cpu = !memory::traits(tier).on_device;
  return {
      cpu ? at::Device(at::kCPU) : settings_.device,
      model::Numerics{cpu ? settings_.cpu_dtype : settings_.dtype,
                      cpu ? settings_.cpu_quantization : settings_.quantization,
                      settings_.float16_residual, settings_.fused_norm, settings_.decode_kernels}};
}

void Ladder::prepare(memory::Tier tier, const FaultSite& site) {
  const auto [device, numerics] = placement(tier);
  if (!memory::traits(tier).reloads_weights && engine_.loaded_as(device, numerics)) return;
  // Free the model and the allocator's cache before loading: the new weights need that room.
  engine_.unload();
  memory::cleanup(settings_.device, settings_.cleanup_threshold_bytes, /*force=*/true);
  FaultSite load_site = site;
  load_site.point = FaultPoint::kLoad;
  check_fault(load_site);
  engine_.load(device, numerics);
}

void Ladder::warm_up() {
  if (settings_.tiers.empty()) return;
  // No fault checks: load faults belong to an image's attempts.
  const auto [device, numerics] = placement(settings_.tiers.front());
  if (!engine_.loaded_as(device, numerics)) engine_.load(device, numerics);
}

ImageRun Ladder::run(int image, const family::ImageInputs& inputs,
                     const std::vector<int32_t>& prompt, const generate::GenerationOptions& options,
                     std::optional<memory::Tier> start) {
  ImageRun run;
  const auto& tiers = settings_.tiers;
  auto first = tiers.begin();
  if (start) {
    const auto found = std::find(tiers.begin(), tiers.end(), *start);
    if (found != tiers.end()) first = found;
  }
  memory::reset_peak_device_memory(settings_.device);
  memory::reset_peak_host_memory();
  int number = 0;
  for (auto it = first; it != tiers.end(); ++it) {
    const memory::Tier tier = *it;
    Attempt attempt;
    attempt.tier = tier;
    attempt.number = ++number;
    FaultSite site{FaultPoint::kLoad, image, tier, attempt.number, 0};
    const auto started = std::chrono::steady_clock::now();
    bool loading = true;
    try {
      prepare(tier, site);
      loading = false;
      generate::GenerationOptions tier_options = options;
      tier_options.cache = memory::traits(tier).cache == memory::TierCache::kOffloaded
                               ? model::CachePlacement::kOffloaded
                               : model::CachePlacement::kDevice;
      // Faults first, then the caller's own hook (a profiler counting decode steps, say).
      tier_options.before_stage = [&, outer = options.before_stage](generate::Stage stage,
                                                                    int step) {
        FaultSite at = site;
        at.point = point_of(stage);
        at.step = step;
        check_fault(at);
        if (outer) outer(stage, step);
      };
      run.result = generate::generate(engine_.model(), inputs, prompt, tier_options);
      attempt.ok = true;
    } catch (const StopRequested&) {
      throw;  // a stop, not a failure: the caller abandons the image
    } catch (...) {
      const ClassifiedError error = classify(std::current_exception());
      attempt.error_class = error.error_class;
      attempt.message = error.message;
    }
    attempt.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    attempt.memory = memory::read_memory(settings_.device);
    run.attempts.push_back(attempt);
    if (attempt.ok) {
      run.ok = true;
      run.tier = tier;
      break;
    }
    if (!is_out_of_memory(attempt.error_class)) {
      run.error = std::string(to_string(tier)) + ": " + attempt.message;
      // A model that cannot be loaded for a reason other than memory fails every image alike.
      run.fatal = loading;
      break;
    }
    // Whatever the failed attempt allocated is unreachable now; give the cache back before the
    // next tier tries.
    memory::cleanup(settings_.device, settings_.cleanup_threshold_bytes, /*force=*/true);
  }
  if (!run.ok && run.error.empty()) {
    run.error = "out of memory on every tier (" + std::to_string(run.attempts.size()) +
                " attempts); last: " + run.attempts.back().message;
  }
  run.peak = memory::read_device_memory(settings_.device);
  return run;
}

}  // namespace docsift::resilience
