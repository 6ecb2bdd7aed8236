// One decode step of docsift's generation, timed and profiled (transformers' side:
// bench/generate/reference_gpu.py, same image and prompt). A warm-up
// generation, a timed one (wall time of every decode step through GenerationOptions::before_stage),
// then one whose decode steps FIRST..FIRST+N-1 run under LibTorch's Kineto profiler, which says how
// many operators and CUDA API calls a step makes and how long its GPU kernels run against its wall
// time (kernel time well under wall time: the step is host-bound). Prints one JSON object.
//   docsift_bench_decode MODEL_DIR [--device cpu|cuda:0] [--dtype float32|float16|bfloat16]
//   [--image FILE]
//       [--tiles 1] [--tokens 64] [--profile-steps 3] [--trace FILE.json] [--cache
//       device|offloaded]
//       [--json OUT] [--prompt TEXT]
// Greedy, free decoding, no stop ids: every generation runs exactly its token count. Not a test.
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#if __has_include(<kineto/ActivityType.h>)
#include <kineto/ActivityType.h>
#define DOCSIFT_HAVE_KINETO_HEADER 1
#endif

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_args.h"
#include "docsift/device/devices.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/memory/device_memory.h"
#include "docsift/stopwatch.h"

using namespace docsift;
namespace prof = torch::autograd::profiler;

namespace {

// KinetoEvent::activityType() is a libkineto::ActivityType: taken from the header where LibTorch
// ships it, else the values of LibTorch 2.11's.
#ifdef DOCSIFT_HAVE_KINETO_HEADER
constexpr uint8_t type_of(libkineto::ActivityType t) { return static_cast<uint8_t>(t); }
constexpr uint8_t kCpuOp = type_of(libkineto::ActivityType::CPU_OP),
                  kUserAnnotation = type_of(libkineto::ActivityType::USER_ANNOTATION),
                  kGpuMemcpy = type_of(libkineto::ActivityType::GPU_MEMCPY),
                  kGpuMemset = type_of(libkineto::ActivityType::GPU_MEMSET),
                  kKernel = type_of(libkineto::ActivityType::CONCURRENT_KERNEL),
                  kCudaRuntime = type_of(libkineto::ActivityType::CUDA_RUNTIME),
                  kCudaDriver = type_of(libkineto::ActivityType::CUDA_DRIVER),
                  kCudaSync = type_of(libkineto::ActivityType::CUDA_SYNC);
#else
constexpr uint8_t kCpuOp = 0, kUserAnnotation = 1, kGpuMemcpy = 3, kGpuMemset = 4, kKernel = 5,
                  kCudaRuntime = 7, kCudaDriver = 8, kCudaSync = 15;
#endif

constexpr const char* kDefaultPrompt =
    "What is the total amount? Answer with TOTAL: value.";  // as run.sh
constexpr const char* kStepMark = "docsift_decode_step_";

struct Options {
  std::string model, device = "cpu", dtype, image = "tests/fixtures/internvl/images/one_tile.png",
                     trace, json, cache = "device", prompt = kDefaultPrompt;
  int tiles = 1, tokens = 64, profile_steps = 3, profile_first = 5;
  bool graphs = true;  // generation.cuda_graphs; --no-graphs launches every operator from the host
  // model.fused_norm and model.decode_kernels (both on by default, as in docsift run): the residual
  // add and RMSNorm as one CUDA kernel; the decode GEMVs and attention as docsift's kernels.
  bool fused_norm = true, decode_kernels = true;
};

at::ScalarType parse_dtype(const std::string& s) {
  if (s == "float32") return at::kFloat;
  if (s == "float16") return at::kHalf;
  if (s == "bfloat16") return at::kBFloat16;
  throw std::runtime_error("--dtype: float32, float16 or bfloat16");
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Bytes of language-model weights one decode step reads, in the compute dtype, from the
// checkpoint's headers: every decoder tensor and the lm_head, not the embedding table (one row is
// read), unless the lm_head is tied to it. Matches reference_gpu.py's weight_bytes_per_token.
std::uint64_t lm_bytes_per_token(const model::Checkpoint& checkpoint, at::ScalarType dtype) {
  std::uint64_t numel = 0, embed = 0;
  bool head = false;
  for (const auto* e : checkpoint.entries()) {
    const std::string& n = e->name;
    const bool lm = n.find("language_model.") != std::string::npos || n.rfind("lm_head.", 0) == 0;
    if (!lm) continue;
    if (n.find("embed_tokens") != std::string::npos) {
      embed += e->numel();
      continue;
    }
    head = head || n.find("lm_head.") != std::string::npos;
    numel += e->numel();
  }
  if (!head) numel += embed;
  return numel * c10::elementSize(dtype);
}

// Wall time of each decode step: from its before_stage hook to the next one (or the end of the
// generation), so the step's token pick (a host read of the argmax) is inside it.
struct StepClock {
  std::vector<Clock::time_point> marks;  // marks[k - 1]: before decode step k
  void on_stage(generate::Stage stage, int step) {
    if (stage == generate::Stage::kDecode && step == static_cast<int>(marks.size()) + 1)
      marks.push_back(Clock::now());
  }
  // Milliseconds of steps from..to (1-based, inclusive), `end` closing the last step.
  std::vector<double> ms(int from, int to, Clock::time_point end) const {
    std::vector<double> out;
    for (int k = from; k <= to && k <= static_cast<int>(marks.size()); ++k) {
      const auto stop =
          k < static_cast<int>(marks.size()) ? marks[static_cast<std::size_t>(k)] : end;
      out.push_back(
          std::chrono::duration<double, std::milli>(stop - marks[static_cast<std::size_t>(k - 1)])
              .count());
    }
    return out;
  }
};

std::string shorten(std::string s, std::size_t n = 240) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

// What happened in one profiled step.
struct StepStats {
  int64_t aten_ops = 0, cpu_ops = 0, local_scalar_dense = 0, kernels = 0, memcpy = 0, memset = 0,
          syncs = 0, runtime_calls = 0;
  uint64_t kernel_ns = 0, memcpy_ns = 0, mark_ns = 0;
  std::map<std::string, int64_t> runtime;  // CUDA runtime and driver API calls by name
};

struct Window {
  int step;
  uint64_t start, end;
};

// Turns the profiler's events into per-step figures. Host-side events (operators, CUDA API calls)
// belong to the step whose mark they start in; GPU events to the step of the API call that launched
// them (same correlation id), else of their operator (linked id), else the mark their start falls
// in.
nlohmann::json analyse(const prof::ProfilerResult& result, int first, int steps,
                       const std::vector<double>& wall_ms) {
  const auto& events = result.events();
  nlohmann::json out;
  out["events"] = events.size();
  std::vector<Window> windows;
  for (const auto& e : events) {
    if (e.activityType() != kUserAnnotation) continue;
    const std::string name = e.name();
    if (name.rfind(kStepMark, 0) != 0) continue;
    windows.push_back({std::stoi(name.substr(std::char_traits<char>::length(kStepMark))),
                       e.startNs(), e.endNs()});
  }
  std::sort(windows.begin(), windows.end(),
            [](const Window& a, const Window& b) { return a.start < b.start; });
  // Without the marks every event counts toward one window spanning the profile; per-step figures
  // are then totals divided by the step count.
  const bool marked = !windows.empty();
  out["step_marks_found"] = windows.size();
  const auto step_at = [&](uint64_t t) -> int {
    if (!marked) return first;
    for (const auto& w : windows) {
      if (t >= w.start && t < w.end) return w.step;
    }
    return -1;
  };
  std::map<int, StepStats> per;
  for (const auto& w : windows) per[w.step].mark_ns = w.end - w.start;
  // Correlation ids → step: an operator's own (a GPU event's linked id), and a CUDA API call's
  // (CUPTI gives a launch and its kernel the same one).
  std::unordered_map<uint64_t, int> op_step, api_step;
  std::map<std::string, int64_t> op_counts;
  struct KernelTotal {
    int64_t count = 0;
    uint64_t ns = 0;
  };
  std::map<std::string, KernelTotal> kernel_totals;
  std::map<std::string, int64_t> runtime_totals;
  int64_t unattributed_host = 0, unattributed_gpu = 0, gpu_by_api = 0, gpu_by_link = 0,
          gpu_by_time = 0;
  // Every event by Kineto activity type and by device, to check the classification on a new setup.
  std::map<std::string, int64_t> by_type, by_device;
  for (const auto& e : events) {
    ++by_type[std::to_string(e.activityType())];
    ++by_device[c10::DeviceTypeName(e.deviceType(), /*lower_case=*/true)];
  }
  out["events_by_activity_type"] = by_type;
  out["events_by_device"] = by_device;
  // Host events first, so that GPU events can find their operator's step.
  for (const auto& e : events) {
    const uint8_t type = e.activityType();
    if (type != kCpuOp && type != kCudaRuntime && type != kCudaDriver) continue;
    const int step = step_at(e.startNs());
    if (step < 0) {
      ++unattributed_host;
      continue;
    }
    StepStats& s = per[step];
    const std::string name = e.name();
    if (type == kCpuOp) {
      op_step[e.correlationId()] = step;
      ++s.cpu_ops;
      if (name.rfind("aten::", 0) == 0) ++s.aten_ops;
      if (name == "aten::_local_scalar_dense") ++s.local_scalar_dense;
      ++op_counts[name];
    } else {
      api_step[e.correlationId()] = step;
      ++s.runtime[name];
      ++s.runtime_calls;
      ++runtime_totals[name];
    }
  }
  for (const auto& e : events) {
    const uint8_t type = e.activityType();
    if (type != kKernel && type != kGpuMemcpy && type != kGpuMemset && type != kCudaSync) continue;
    int step = -1;
    if (const auto it = api_step.find(e.correlationId());
        e.correlationId() != 0 && it != api_step.end()) {
      step = it->second;
      ++gpu_by_api;
    } else if (const auto op = op_step.find(e.linkedCorrelationId());
               e.linkedCorrelationId() != 0 && op != op_step.end()) {
      step = op->second;
      ++gpu_by_link;
    } else if ((step = step_at(e.startNs())) >= 0) {
      ++gpu_by_time;
    }
    if (step < 0) {
      ++unattributed_gpu;
      continue;
    }
    StepStats& s = per[step];
    if (type == kKernel) {
      ++s.kernels;
      s.kernel_ns += e.durationNs();
      auto& k = kernel_totals[e.name()];
      ++k.count;
      k.ns += e.durationNs();
    } else if (type == kGpuMemcpy) {
      ++s.memcpy;
      s.memcpy_ns += e.durationNs();
    } else if (type == kGpuMemset) {
      ++s.memset;
    } else {
      ++s.syncs;
    }
  }
  nlohmann::json list = nlohmann::json::array();
  double kernel_ms_sum = 0, wall_sum = 0;
  for (int k = first; k < first + steps; ++k) {
    const StepStats& s = per[k];
    const std::size_t i = static_cast<std::size_t>(k - first);
    const double wall = i < wall_ms.size() ? wall_ms[i] : 0;
    // Unmarked: the one window holds every step.
    const double div = marked ? 1.0 : static_cast<double>(steps);
    const double kernel_ms = static_cast<double>(s.kernel_ns) / 1e6 / div;
    kernel_ms_sum += kernel_ms;
    wall_sum += wall;
    nlohmann::json runtime = nlohmann::json::object();
    for (const auto& [name, n] : s.runtime) runtime[name] = static_cast<double>(n) / div;
    list.push_back({{"step", k},
                    {"wall_ms", wall},
                    {"mark_ms", static_cast<double>(s.mark_ns) / 1e6},
                    {"aten_ops", static_cast<double>(s.aten_ops) / div},
                    {"cpu_ops", static_cast<double>(s.cpu_ops) / div},
                    {"host_reads", static_cast<double>(s.local_scalar_dense) / div},
                    {"cuda_api_calls", static_cast<double>(s.runtime_calls) / div},
                    {"cuda_api", runtime},
                    {"gpu_kernels", static_cast<double>(s.kernels) / div},
                    {"gpu_kernel_ms", kernel_ms},
                    {"gpu_memcpy", static_cast<double>(s.memcpy) / div},
                    {"gpu_memcpy_ms", static_cast<double>(s.memcpy_ns) / 1e6 / div},
                    {"gpu_memset", static_cast<double>(s.memset) / div},
                    {"gpu_sync_events", static_cast<double>(s.syncs) / div},
                    {"kernel_over_wall", wall > 0 ? kernel_ms / wall : 0.0}});
    if (!marked) break;  // one entry: the average
  }
  out["steps"] = list;
  const double n = marked ? static_cast<double>(list.size()) : 1.0;
  out["per_step"] = {{"wall_ms", wall_sum / n},
                     {"gpu_kernel_ms", kernel_ms_sum / n},
                     {"kernel_over_wall", wall_sum > 0 ? kernel_ms_sum / wall_sum : 0.0}};
  for (const char* key :
       {"aten_ops", "cpu_ops", "host_reads", "cuda_api_calls", "gpu_kernels", "gpu_memcpy"}) {
    double sum = 0;
    for (const auto& s : list) sum += s[key].get<double>();
    out["per_step"][key] = sum / n;
  }
  out["host_reads_per_step"] = out["per_step"]["host_reads"];
  out["attribution"] = {{"gpu_by_api_call", gpu_by_api},
                        {"gpu_by_linked_op", gpu_by_link},
                        {"gpu_by_time", gpu_by_time},
                        {"gpu_unattributed", unattributed_gpu},
                        {"host_unattributed", unattributed_host}};
  // Tops over all profiled steps, as per-step figures.
  std::vector<std::pair<std::string, KernelTotal>> kernels(kernel_totals.begin(),
                                                           kernel_totals.end());
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  nlohmann::json top_kernels = nlohmann::json::array();
  for (std::size_t i = 0; i < kernels.size() && i < 10; ++i) {
    top_kernels.push_back(
        {{"name", shorten(kernels[i].first)},
         {"per_step", static_cast<double>(kernels[i].second.count) / steps},
         {"ms_per_step", static_cast<double>(kernels[i].second.ns) / 1e6 / steps},
         {"mean_us", static_cast<double>(kernels[i].second.ns) / 1e3 / kernels[i].second.count}});
  }
  out["top_gpu_kernels"] = top_kernels;
  std::vector<std::pair<std::string, int64_t>> ops(op_counts.begin(), op_counts.end());
  std::sort(ops.begin(), ops.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json top_ops = nlohmann::json::array();
  for (std::size_t i = 0; i < ops.size() && i < 10; ++i) {
    top_ops.push_back(
        {{"name", ops[i].first}, {"per_step", static_cast<double>(ops[i].second) / steps}});
  }
  out["top_cpu_ops"] = top_ops;
  nlohmann::json api = nlohmann::json::object();
  for (const auto& [name, count] : runtime_totals) api[name] = static_cast<double>(count) / steps;
  out["cuda_api_per_step"] = api;
  return out;
}

// The profiled generation: steps first..first+steps-1 between enableProfiler and disableProfiler,
// each inside a user-scope mark so its events can be told apart. Never throws for the profiler's
// sake: its errors go into "error" and the rest of the run goes on.
nlohmann::json profile_decode(const family::Model& model, const family::ImageInputs& inputs,
                              const std::vector<int32_t>& prompt, model::CachePlacement cache,
                              bool graphs, bool cuda, int first, int steps,
                              const std::string& trace) {
  nlohmann::json out = {{"first_step", first}, {"steps_profiled", steps}, {"activities", {"CPU"}}};
  std::set<prof::ActivityType> activities{prof::ActivityType::CPU};
  if (cuda) {
    activities.insert(prof::ActivityType::CUDA);
    out["activities"].push_back("CUDA");
  }
  const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
  std::vector<std::string> errors;
  std::unique_ptr<prof::ProfilerResult> result;
  bool enabled = false;
  // RecordFunction keeps a view of its name: the names live here for the whole generation.
  std::vector<std::string> names;
  for (int k = first; k < first + steps; ++k) names.push_back(kStepMark + std::to_string(k));
  std::optional<at::RecordFunction> mark;
  StepClock clock;
  const auto stop = [&] {
    mark.reset();  // ends the last step's mark before the profiler stops
    if (!enabled) return;
    enabled = false;
    try {
      result = prof::disableProfiler();
    } catch (const std::exception& e) {
      errors.push_back(std::string("disableProfiler: ") + e.what());
    }
  };
  try {
    // Before the generation: CUPTI's set-up stays out of the profiled steps.
    prof::prepareProfiler(config, activities);
  } catch (const std::exception& e) {
    errors.push_back(std::string("prepareProfiler: ") + e.what());
  }
  generate::GenerationOptions o;
  o.max_new_tokens =
      first + steps + 1;  // decode steps 1..first+steps: the last one's hook stops the profiler
  o.cache = cache;
  o.cuda_graphs = graphs;
  // The step clock reads after starting the profiler and the mark, and before stopping them, so
  // that a step's wall time holds neither.
  o.before_stage = [&](generate::Stage stage, int step) {
    if (stage != generate::Stage::kDecode || step < first) return clock.on_stage(stage, step);
    if (step >= first + steps) {
      clock.on_stage(stage, step);
      return stop();
    }
    if (step == first && errors.empty()) {
      try {
        prof::enableProfiler(config, activities);
        enabled = true;
      } catch (const std::exception& e) {
        errors.push_back(std::string("enableProfiler: ") + e.what());
      }
    }
    mark.reset();
    if (enabled) {
      mark.emplace(at::RecordScope::USER_SCOPE);
      if (mark->isActive())
        mark->before(names[static_cast<std::size_t>(step - first)]
                         .c_str());  // const char*: LibTorch 2.7.1 (no string_view overload)
                                     // and 2.11 both take it
    }
    clock.on_stage(stage, step);
  };
  generate::generate(model, inputs, prompt, o);
  const auto end = Clock::now();
  stop();
  const std::vector<double> wall = clock.ms(first, first + steps - 1, end);
  out["wall_ms"] = wall;
  if (result) {
    try {
      if (result->events().empty()) errors.push_back("the profiler returned no events");
      const nlohmann::json a = analyse(*result, first, steps, wall);
      out.update(a);
    } catch (const std::exception& e) {
      errors.push_back(std::string("analysing the events: ") + e.what());
    }
    if (!trace.empty()) {
      try {
        result->save(trace);
        out["trace"] = trace;
      } catch (const std::exception& e) {
        errors.push_back(std::string("saving the trace: ") + e.what());
      }
    }
  } else if (errors.empty()) {
    errors.push_back("the profiler returned no result");
  }
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : "; ") + e;
    out["error"] = joined;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o;
  for (bench::Args a(argc, argv); a.next();) {
    const std::string f = a.arg();
    if (f == "--device")
      o.device = a.value();
    else if (f == "--dtype")
      o.dtype = a.value();
    else if (f == "--image")
      o.image = a.value();
    else if (f == "--tiles")
      o.tiles = a.int_value();
    else if (f == "--tokens")
      o.tokens = a.int_value();
    else if (f == "--profile-steps")
      o.profile_steps = a.int_value();
    else if (f == "--trace")
      o.trace = a.value();
    else if (f == "--cache")
      o.cache = a.value();
    else if (f == "--json")
      o.json = a.value();
    else if (f == "--prompt")
      o.prompt = a.value();
    else if (f == "--no-graphs")
      o.graphs = false;
    else if (f == "--no-fused-norm")
      o.fused_norm = false;
    else if (f == "--no-decode-kernels")
      o.decode_kernels = false;
    else if (o.model.empty() && !a.is_flag())
      o.model = f;
    else
      a.unknown();
  }
  if (o.model.empty()) {
    throw std::runtime_error(
        "usage: docsift_bench_decode MODEL_DIR [--device cpu|cuda:0] [--dtype T] [--image FILE] "
        "[--tiles 1] [--tokens 64] [--profile-steps 3] [--trace FILE.json] [--cache "
        "device|offloaded] [--no-graphs] [--no-fused-norm] [--no-decode-kernels] [--json OUT]");
  }
  if (o.tokens < 3)
    throw std::runtime_error("--tokens: at least 3 (the median skips the first decode step)");
  if (o.profile_steps < 1) throw std::runtime_error("--profile-steps: at least 1");
  if (o.cache != "device" && o.cache != "offloaded")
    throw std::runtime_error("--cache: device or offloaded");
  const model::CachePlacement cache =
      o.cache == "offloaded" ? model::CachePlacement::kOffloaded : model::CachePlacement::kDevice;
  // Loads the CUDA plugin before anything asks LibTorch about CUDA (device/cuda_backend.h).
  const at::Device device = device::resolve_device(o.device);
  const bool cuda = device.is_cuda();
  if (o.dtype.empty()) o.dtype = cuda ? "bfloat16" : "float32";
  const at::ScalarType dtype = parse_dtype(o.dtype);
  nlohmann::json out = {{"model", o.model},
                        {"device", device.str()},
                        {"dtype", o.dtype},
                        {"cache", o.cache},
                        {"cuda_graphs", o.graphs},
                        {"fused_norm", o.fused_norm},
                        {"decode_kernels", o.decode_kernels},
                        {"tokens", o.tokens},
                        {"threads", at::get_num_threads()},
                        {"image", o.image}};
  if (cuda) {
    const auto status = device::cuda_status();
    out["gpu"] =
        status.devices.at(static_cast<std::size_t>(device.index() < 0 ? 0 : device.index())).name;
    out["cuda_runtime"] = status.runtime_version;
  }

  family::LoadedModel engine(o.model);
  auto t = Clock::now();
  engine.load(device,
              model::Numerics{dtype, model::Quantization::None, model::Float16Residual::Float32,
                              o.fused_norm, o.decode_kernels});
  memory::synchronize_device(device);
  out["load_s"] = seconds_since(t);
  const family::Model& model = engine.model();
  const family::ImageInputs inputs =
      engine.family().preprocess(image::read_rgb_image(o.image), o.tiles);
  const std::vector<int32_t> prompt = engine.chat().encode(o.prompt, inputs.tiles);
  out["tiles"] = inputs.tiles;
  out["prompt_tokens"] = prompt.size();
  out["weight_bytes"] = model.parameter_bytes();  // every weight as held, vision tower included
  const std::uint64_t per_token = lm_bytes_per_token(engine.checkpoint(), dtype);
  out["weight_bytes_per_token"] = per_token;

  // Warm-up: kernels, cuBLAS handles, the allocator's blocks.
  generate::GenerationOptions warm;
  warm.max_new_tokens = 8;
  warm.cache = cache;
  warm.cuda_graphs = o.graphs;
  generate::generate(model, inputs, prompt, warm);

  // Timed: decode steps 2..tokens-1 (the first token comes from prefill; step 1 sizes buffers).
  StepClock clock;
  generate::GenerationOptions timed;
  timed.max_new_tokens = o.tokens;
  timed.cache = cache;
  timed.cuda_graphs = o.graphs;
  timed.before_stage = [&clock](generate::Stage stage, int step) { clock.on_stage(stage, step); };
  const auto result = generate::generate(model, inputs, prompt, timed);
  const auto end = Clock::now();
  const std::vector<double> step_ms = clock.ms(2, result.decode_steps, end);
  const double med = median(step_ms);
  out["decode_steps"] = result.decode_steps;
  out["decode_ms_per_token"] = med;
  out["decode_ms_mean"] = mean(step_ms);
  out["decode_ms_min"] = step_ms.empty() ? 0.0 : *std::min_element(step_ms.begin(), step_ms.end());
  out["decode_ms_max"] = step_ms.empty() ? 0.0 : *std::max_element(step_ms.begin(), step_ms.end());
  out["first_decode_ms"] = clock.ms(1, 1, end).empty() ? 0.0 : clock.ms(1, 1, end).front();
  out["vision_s"] = result.vision_seconds;
  out["prefill_s"] = result.prefill_seconds;
  out["decode_s"] = result.decode_seconds;
  out["decode_tokens_per_s"] =
      static_cast<double>(result.tokens.size() - 1) / std::max(1e-9, result.decode_seconds);
  // Weight bytes per second at the median step: how near the memory bandwidth decode runs.
  out["weight_GBps_at_median"] = med > 0 ? static_cast<double>(per_token) / (med / 1e3) / 1e9 : 0.0;
  out["cache_device_bytes"] = result.cache_device_bytes;
  out["cache_host_bytes"] = result.cache_host_bytes;
  out["ids"] = result.tokens;

  out["profile"] = profile_decode(model, inputs, prompt, cache, o.graphs, cuda, o.profile_first,
                                  o.profile_steps, o.trace);
  const std::string text = out.dump(1);
  std::printf("%s\n", text.c_str());
  if (!o.json.empty()) std::ofstream(o.json) << text << '\n';
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "docsift_bench_decode: %s\n", e.what());
  return 1;
}
