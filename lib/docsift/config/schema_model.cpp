// The keys of the model and how it runs: model, vision, generation and memory, with the checks
// only they use. schema.cpp lists them among the rest (declared_keys).
#include "docsift/config/schema_model.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "docsift/config/allocator_conf.h"
#include "docsift/config/fields.h"
#include "docsift/error.h"

namespace docsift::config {
namespace {

std::string device_problem(const std::string& device) {
  if (device == "cpu" || device == "cuda") return "";
  if (device.starts_with("cuda:")) {
    int index = -1;
    const char* first = device.data() + 5;
    const char* last = device.data() + device.size();
    const auto [ptr, ec] = std::from_chars(first, last, index);
    if (ec == std::errc() && ptr == last && first != last && index >= 0 && index < 64) return "";
  }
  return "expected cpu, cuda or cuda:N, got '" + device + "'";
}

std::string allocator_problem(const std::string& text) {
  try {
    parse_allocator_conf(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string cpu_dtype_problem(const model::Precision& p) {
  return p == model::Precision::Float16
             ? "float16 matmuls on the CPU are slow and lossy; use float32 or bfloat16"
             : "";
}

// memory.tiers: a non-empty list of tier names, none twice.
template <class At>
Field tiers_key(std::string_view key, std::string_view help, At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            if (!n.IsSequence() || n.size() == 0) {
              fail(w, key,
                   "expected a non-empty list of tiers (" + choices(memory::kTierNames) +
                       "), got " + shown(n));
            }
            std::vector<memory::Tier> tiers;
            for (const auto& item : n) {
              const memory::Tier t = choice(item, w, key, memory::kTierNames);
              if (std::find(tiers.begin(), tiers.end(), t) != tiers.end()) {
                fail(w, key, "tier '" + item.Scalar() + "' is listed twice");
              }
              tiers.push_back(t);
            }
            at(c) = tiers;
          },
          [=](const Config& c) {
            std::vector<std::string> names;
            for (const memory::Tier t : at(c)) names.emplace_back(to_string(t));
            return flow_list(names);
          }};
}

}  // namespace

// model: the checkpoint and how it runs; the families' own keys follow model.decode_kernels
// (with_family_keys, schema.cpp).
std::vector<Field> model_keys() {
  return {
      text_key(
          "model.path", "model folder (Hugging Face layout: config.json + *.safetensors)",
          [](auto& c) -> auto& { return c.model.path; }, Text::kNullable),
      choice_key(
          "model.dtype", "weights and activations on the device: float32, float16 or bfloat16",
          model::kPrecisionNames, [](auto& c) -> auto& { return c.model.dtype; }),
      text_key(
          "model.device", "cpu, cuda or cuda:N", [](auto& c) -> auto& { return c.model.device; },
          Text::kPlain, device_problem),
      integer_key(
          "model.max_tiles", "most image tiles per document (1-40)", 1, 40,
          [](auto& c) -> auto& { return c.model.max_tiles; }),
      choice_key(
          "model.quantization",
          "none, or int8: language-model linear layers as int8 with one scale per output channel "
          "(vision tower and projector stay in model.dtype)",
          model::kQuantizationNames, [](auto& c) -> auto& { return c.model.quantization; }),
      choice_key(
          "model.float16_residual",
          "with dtype float16, the residual stream between decoder layers: float32 (safe), float16 "
          "(overflows on Qwen2's massive activations) or clamp",
          model::kFloat16ResidualNames, [](auto& c) -> auto& { return c.model.float16_residual; }),
      bool_key(
          "model.fused_norm",
          "true: on a CUDA device, the language decoder's residual adds and RMSNorms run as one "
          "kernel of docsift's; false: LibTorch's operators",
          [](auto& c) -> auto& { return c.model.fused_norm; }),
      bool_key(
          "model.decode_kernels",
          "true: on a CUDA device, each decode step's matrix-vector products, RoPE, cache write "
          "and attention run as docsift's kernels; false: cuBLAS and LibTorch's operators",
          [](auto& c) -> auto& { return c.model.decode_kernels; }),
  };
}

std::vector<Field> vision_keys() {
  return {
      choice_key(
          "vision.resample",
          "auto (as the checkpoint's reference code: pil for InternVL3's original layout and "
          "Qwen2.5-VL's Hub release, torch for -hf, Qwen3-VL and transformers 5 folders), pil "
          "(Pillow's "
          "bicubic, exactly) or torch (torchvision's tensor path)",
          image::kResampleNames, [](auto& c) -> auto& { return c.vision.resample; }),
      auto_integer_key(
          "vision.max_pixels",
          "auto (the checkpoint's image processor's) or 784-1073741824: the most pixels an image "
          "is resized to, for models that resize to a pixel budget (Qwen2.5-VL, Qwen3-VL); lower "
          "it for a "
          "smaller card (the memory plan follows)",
          784, 1LL << 30, [](auto& c) -> auto& { return c.vision.max_pixels; }),
  };
}

std::vector<Field> generation_keys() {
  return {
      auto_integer_key(
          "generation.max_new_tokens",
          "auto (from the field count) or 1-32768: the most tokens the model writes for a page "
          "(keys decoding: its values together, each also capped by its field's max_tokens)",
          1, 32768, [](auto& c) -> auto& { return c.generation.max_new_tokens; }),
      real_key(
          "generation.temperature", "0 = greedy; otherwise sampling temperature (<= 10)", 0.0, 10.0,
          Bound::kClosed, [](auto& c) -> auto& { return c.generation.temperature; }),
      real_key(
          "generation.top_p", "nucleus sampling mass, > 0 and <= 1", 0.0, 1.0, Bound::kOpen,
          [](auto& c) -> auto& { return c.generation.top_p; }),
      integer_key(
          "generation.seed", "sampling seed (a non-negative integer)", 0,
          std::numeric_limits<long long>::max(),
          [](auto& c) -> auto& { return c.generation.seed; }),
      bool_key(
          "generation.cuda_graphs",
          "true: on a CUDA device, each decode step replays one captured CUDA graph (InternVL3 and "
          "InternVL3.5, KV cache on the device); false: every operator launched from the host",
          [](auto& c) -> auto& { return c.generation.cuda_graphs; }),
  };
}

std::vector<Field> memory_keys() {
  return {
      text_key(
          "memory.allocator", "CUDA caching allocator settings (PYTORCH_CUDA_ALLOC_CONF syntax)",
          [](auto& c) -> auto& { return c.memory.allocator; }, Text::kNullIsEmpty,
          allocator_problem),
      integer_key(
          "memory.fragmentation_threshold_mb",
          "empty the allocator cache when reserved-allocated or inactive split exceeds this", 0,
          1 << 20, [](auto& c) -> auto& { return c.memory.fragmentation_threshold_mb; }),
      choice_key(
          "memory.cleanup", "after_image or never", memory::kCleanupNames,
          [](auto& c) -> auto& { return c.memory.cleanup; }),
      optional_real_key(
          "memory.budget_gb", "null (whole device) or the GB to emulate, e.g. 16 for a V100", 0.0,
          4096.0, Bound::kOpen, [](auto& c) -> auto& { return c.memory.budget_gb; }),
      tiers_key(
          "memory.tiers",
          "out-of-memory ladder, tried in order (any of standard, offloaded_cache, reload, "
          "reload_retry, cpu)",
          [](auto& c) -> auto& { return c.memory.tiers; }),
      choice_key(
          "memory.cpu_dtype", "precision of the cpu tier: float32 or bfloat16",
          model::kPrecisionNames, [](auto& c) -> auto& { return c.memory.cpu_dtype; },
          cpu_dtype_problem),
      choice_key(
          "memory.cpu_quantization",
          "none (as the reference), or int8 for hosts without room for the full-precision model",
          model::kQuantizationNames, [](auto& c) -> auto& { return c.memory.cpu_quantization; }),
      choice_key(
          "memory.isolate", "none, or worker (model in a child process)", kIsolationNames,
          [](auto& c) -> auto& { return c.memory.isolate; }),
      integer_key(
          "memory.worker.recycle_after_images", "restart the worker after N images (0 = never)", 0,
          1'000'000, [](auto& c) -> auto& { return c.memory.worker.recycle_after_images; }),
      integer_key(
          "memory.worker.recycle_above_mb",
          "restart the worker when its device memory passes N MB (0 = never)", 0, 1 << 24,
          [](auto& c) -> auto& { return c.memory.worker.recycle_above_mb; }),
      integer_key(
          "memory.worker.start_retries",
          "start a worker that died while starting (killed by a signal, e.g. the OOM killer) again "
          "up to N times, with backoff, before the run stops",
          0, 10, [](auto& c) -> auto& { return c.memory.worker.start_retries; }),
      integer_key(
          "memory.worker.timeout_s", "kill a worker that takes longer than this per image", 1,
          86'400, [](auto& c) -> auto& { return c.memory.worker.timeout_s; }),
  };
}

}  // namespace docsift::config
