#include "docsift/resilience/fault_spec.h"

#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>

#include <cstdio>
#include <cstdlib>

#include "docsift/error.h"

namespace docsift::resilience {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

int positive(std::string_view value, const std::string& spec, std::string_view key) {
  int n = 0;
  for (const char c : value) {
    if (c < '0' || c > '9' || n > 1'000'000) {
      throw ConfigError("fault spec \"" + spec + "\": " + std::string(key) +
                        " must be a positive integer");
    }
    n = n * 10 + (c - '0');
  }
  if (value.empty() || n < 1) {
    throw ConfigError("fault spec \"" + spec + "\": " + std::string(key) +
                      " must be a positive integer");
  }
  return n;
}

// A bad spec: what is wrong with it, then the grammar.
ConfigError spec_error(const std::string& spec, const std::string& problem) {
  return ConfigError(
      "fault spec \"" + spec + "\": " + problem +
      " (grammar: "
      "oom@load|vision|prefill|decode|extend[:image=N][:tier=NAME][:attempt=N][:step=N], "
      "crash|hang@[start|load|vision|prefill|decode|extend:]image=N[:tier=NAME][:attempt=N][:step="
      "N], crash|hang@startup[:image=N][:attempt=N])");
}

// The point a spec of `kind` names after its '@'; start, startup, applied and rebuilt are crash
// and hang points only.
FaultPoint point_named(std::string_view point, FaultKind kind, const std::string& spec) {
  if (point == "start" && kind != FaultKind::kOom) return FaultPoint::kStart;
  if (point == "startup" && kind != FaultKind::kOom) return FaultPoint::kStartup;
  if (point == "applied" && kind != FaultKind::kOom) return FaultPoint::kApplied;
  if (point == "rebuilt" && kind != FaultKind::kOom) return FaultPoint::kRebuilt;
  if (point == "load") return FaultPoint::kLoad;
  if (point == "vision") return FaultPoint::kVision;
  if (point == "prefill") return FaultPoint::kPrefill;
  if (point == "decode") return FaultPoint::kDecode;
  if (point == "extend") return FaultPoint::kExtend;
  throw spec_error(spec,
                   "unknown point \"" + std::string(point) +
                       "\" (known: load, vision, prefill, decode, extend" +
                       (kind == FaultKind::kOom ? ")" : ", start, startup, applied, rebuilt)"));
}

// One KEY=VALUE qualifier of `spec` into `f`, whose point is already read (step= checks it).
void add_qualifier(FaultSpec& f, std::string_view qualifier, const std::string& spec) {
  const std::size_t eq = qualifier.find('=');
  if (eq == std::string_view::npos)
    throw spec_error(spec, "qualifier \"" + std::string(qualifier) + "\" is not KEY=VALUE");
  const std::string_view key = qualifier.substr(0, eq), value = qualifier.substr(eq + 1);
  const auto once = [&](bool already) {
    if (already) throw spec_error(spec, std::string(key) + " given twice");
  };
  if (key == "image") {
    once(f.image.has_value());
    f.image = positive(value, spec, key);
  } else if (key == "attempt") {
    once(f.attempt.has_value());
    f.attempt = positive(value, spec, key);
  } else if (key == "step") {
    once(f.step.has_value());
    if (f.point != FaultPoint::kDecode && f.point != FaultPoint::kExtend) {
      throw spec_error(spec, "step= only applies to decode and extend");
    }
    f.step = positive(value, spec, key);
  } else if (key == "tier") {
    once(f.tier.has_value());
    f.tier = memory::tier_named(value);
    if (!f.tier) {
      std::string known;
      for (const auto& t : memory::tier_names()) known += (known.empty() ? "" : ", ") + t;
      throw spec_error(spec, "unknown tier \"" + std::string(value) + "\" (known: " + known + ")");
    }
  } else {
    throw spec_error(
        spec, "unknown qualifier \"" + std::string(key) + "\" (known: image, tier, attempt, step)");
  }
}

// One spec of a plan: KIND@POINT, then its qualifiers.
FaultSpec parse_spec(std::string_view raw) {
  const std::string spec(raw);
  auto parts = split(raw, ':');
  const std::size_t at = parts[0].find('@');
  if (at == std::string_view::npos) throw spec_error(spec, "expected KIND@POINT");
  FaultSpec f;
  f.text = spec;
  const std::string_view kind = parts[0].substr(0, at);
  std::string_view point = parts[0].substr(at + 1);
  if (kind == "oom") {
    f.kind = FaultKind::kOom;
  } else if (kind == "crash" || kind == "hang") {
    f.kind = kind == "crash" ? FaultKind::kCrash : FaultKind::kHang;
    // crash@image=N: no point, the first qualifier follows the '@'; the fault fires at start.
    if (point.find('=') != std::string_view::npos) {
      parts.insert(parts.begin() + 1, point);
      point = "start";
    }
  } else {
    throw spec_error(spec, "unknown kind \"" + std::string(kind) + "\" (known: oom, crash, hang)");
  }
  f.point = point_named(point, f.kind, spec);
  for (std::size_t i = 1; i < parts.size(); ++i) add_qualifier(f, parts[i], spec);
  return f;
}

}  // namespace

std::string_view to_string(FaultPoint point) {
  switch (point) {
    case FaultPoint::kStartup:
      return "startup";
    case FaultPoint::kStart:
      return "start";
    case FaultPoint::kLoad:
      return "load";
    case FaultPoint::kVision:
      return "vision";
    case FaultPoint::kPrefill:
      return "prefill";
    case FaultPoint::kDecode:
      return "decode";
    case FaultPoint::kExtend:
      return "extend";
    case FaultPoint::kApplied:
      return "applied";
    case FaultPoint::kRebuilt:
      return "rebuilt";
  }
  return "?";
}

FaultPlan FaultPlan::parse(std::string_view text) {
  FaultPlan plan;
  if (text.find_first_not_of(" \t") == std::string_view::npos) return plan;
  for (const std::string_view raw : split(text, ',')) plan.specs_.push_back(parse_spec(raw));
  return plan;
}

FaultPlan FaultPlan::from_environment() {
  const char* value = std::getenv("DOCSIFT_FAULTS");
  if (value == nullptr) return {};
  try {
    return parse(value);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("DOCSIFT_FAULTS: ") + e.what());
  }
}

const FaultSpec* FaultPlan::match(const FaultSite& site) const {
  for (const FaultSpec& f : specs_) {
    if (f.point != site.point) continue;
    if (f.image && *f.image != site.image) continue;
    if (f.step && *f.step != site.step) continue;
    if (f.tier && f.tier != site.tier) continue;  // a site without a tier matches no tier=
    // oom counts the ladder's attempts; crash and hang the supervisor's (a fresh worker's retry).
    const int attempt = f.kind == FaultKind::kOom ? site.attempt : site.process_attempt;
    if (f.attempt && *f.attempt != attempt) continue;
    // Without tier= or attempt=, only the first attempt: the retry then succeeds.
    if (!f.tier && !f.attempt && (site.attempt != 1 || site.process_attempt != 1)) continue;
    return &f;
  }
  return nullptr;
}

bool FaultPlan::needs_isolation() const {
  return std::any_of(specs_.begin(), specs_.end(),
                     [](const FaultSpec& f) { return f.kind != FaultKind::kOom; });
}

void fire_process_fault(const FaultSpec& spec) {
  if (spec.kind == FaultKind::kHang) {
    while (true) ::pause();  // until the supervisor's timeout kills us
  }
  // Said on stderr, as a real crash often says something first; the supervisor keeps a worker's
  // last lines for its own message.
  std::fprintf(stderr, "docsift worker: injected fault %s\n", spec.text.c_str());
  std::fflush(stderr);
  // An injected crash need not leave a core file of a process that held a model.
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  std::abort();
}

void fault_at(const FaultPlan& plan, FaultPoint point, int n, const char* command) {
  if (plan.empty()) return;
  const FaultSite site{point, n, std::nullopt, 1, 0, 1};
  if (const FaultSpec* f = plan.match(site)) {
    std::fprintf(stderr, "%s: injected fault %s\n", command, f->text.c_str());
    std::fflush(stderr);
    fire_process_fault(*f);
  }
}

}  // namespace docsift::resilience
