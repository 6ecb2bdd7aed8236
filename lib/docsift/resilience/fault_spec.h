// Fault injection for testing the out-of-memory ladder without a GPU: a plan parsed from
// DOCSIFT_FAULTS says at which named point of which image, tier and attempt a fault fires.
// Free of LibTorch (the standard library, docsift/error.h and the header-only memory/tier.h), so
// that config/ can check a plan when it reads testing.faults and the fuzz build compiles it.
//
//   spec      := "oom" "@" POINT { ":" QUALIFIER }
//              | ("crash" | "hang") "@" [ POINT ":" ] QUALIFIER { ":" QUALIFIER }
//   POINT     := "start" | "load" | "vision" | "prefill" | "decode" | "extend"
//              | "startup" | "applied" | "rebuilt" (crash/hang only)
//   QUALIFIER := "image=" N | "tier=" TIER | "attempt=" N | "step=" N      (step: decode, extend)
//   plan      := spec { "," spec }
//
// Images and attempts count from 1 in processing order; decode steps count from 1, and so do
// extends (the forced keys of `keys` decoding, one per field asked). oom throws
// the allocator's out-of-memory error, which the tier ladder handles; its attempt= counts the
// ladder's attempts. crash (abort) and hang (sleep forever) need worker isolation: they fire in
// the worker process, by default at "start" (when it takes the image), and their attempt= counts
// the supervisor's attempts (a crashed image is retried once in a fresh worker). At "startup" a
// crash or hang fires in a worker before it loads the model; there image= is the page the worker
// is started for and attempt= counts the tries at starting one (memory.worker.start_retries). A
// spec without tier= or attempt= fires on an image's first attempt only, so the image can recover.
// Example: oom@prefill:image=2:tier=standard,oom@prefill:image=2:tier=offloaded_cache,crash@image=5
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/memory/tier.h"

namespace docsift::resilience {

enum class FaultKind { kOom, kCrash, kHang };
// kStartup: in a worker process, before it loads the model (attempt= counts tries at starting one).
// kApplied, kRebuilt: `docsift review apply` and the run's count of pages that agree (crash/hang
// only, in that process itself): after the image=N-th corrected or agreeing record is journaled,
// and after the tables are rebuilt (before summary.json), so that a test can kill it there
// (batch/corrections.h, batch/agreement.h).
enum class FaultPoint {
  kStartup,
  kStart,
  kLoad,
  kVision,
  kPrefill,
  kDecode,
  kExtend,
  kApplied,
  kRebuilt
};

std::string_view to_string(FaultPoint point);

struct FaultSpec {
  FaultKind kind = FaultKind::kOom;
  FaultPoint point = FaultPoint::kPrefill;
  std::optional<int> image, attempt, step;
  std::optional<memory::Tier> tier;
  std::string text;  // as written, for messages
};

// What a crash or hang spec does once it fires: abort() (SIGABRT), or sleep until killed.
[[noreturn]] void fire_process_fault(const FaultSpec& spec);

// Where the program is when it asks whether to fail.
struct FaultSite {
  FaultPoint point;
  int image = 1;                     // 1-based, processing order
  std::optional<memory::Tier> tier;  // none before the ladder runs (startup, start)
  int attempt = 1;                   // 1-based attempt of this image
  int step = 0;                      // decode step or extend, 1-based; 0 elsewhere
  int process_attempt = 1;  // the supervisor's attempt at this image (worker isolation), 1-based
};

class FaultPlan {
 public:
  FaultPlan() = default;
  // Throws docsift::ConfigError naming the bad spec and what is wrong with it (a tier= that names
  // none of memory/tier.h's tiers among them).
  static FaultPlan parse(std::string_view text);
  // The plan from the DOCSIFT_FAULTS environment variable (empty when unset).
  static FaultPlan from_environment();

  bool empty() const { return specs_.empty(); }
  // Appends `other`'s specs (testing.faults, then DOCSIFT_FAULTS).
  void add(const FaultPlan& other) {
    specs_.insert(specs_.end(), other.specs_.begin(), other.specs_.end());
  }
  const std::vector<FaultSpec>& specs() const { return specs_; }
  // The first spec that fires at `site`, if any.
  const FaultSpec* match(const FaultSite& site) const;
  // Whether a spec crashes or hangs the process (only a run with worker isolation takes those).
  bool needs_isolation() const;

 private:
  std::vector<FaultSpec> specs_;
};

// Where a command that writes a folder's journal (review apply, a run's agreement pass) reaches
// `point` for the n-th time: a crash or hang spec of `plan` that matches fires there, said first on
// stderr as "COMMAND: injected fault SPEC".
void fault_at(const FaultPlan& plan, FaultPoint point, int n, const char* command);

}  // namespace docsift::resilience
