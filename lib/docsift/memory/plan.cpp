#include "docsift/memory/plan.h"

#include <algorithm>
#include <sstream>

#include "docsift/format.h"

namespace docsift::memory {
namespace {

using u64 = std::uint64_t;

// Elements alive at the widest point of one vision layer over every tile: hidden states,
// q/k/v, the MLP's intermediate, and the attention scores. An encoder over a fixed number of tiles
// at once (vision_joint_tiles) runs them all whatever the image, keeps its intermediate hidden
// states, and attends without a mask, so no score matrix exists; at its end the features and the
// projector output are alive together.
u64 vision_elements(const ModelShape& m, std::int64_t tiles) {
  const bool joint = m.vision_joint_tiles > 0;
  const u64 t = static_cast<u64>(joint ? m.vision_joint_tiles : tiles),
            n = static_cast<u64>(m.vision_tokens);
  const u64 pixels = t * 3 * static_cast<u64>(m.image_size * m.image_size);
  const u64 layer = t * n * static_cast<u64>(6 * m.vision_hidden + m.vision_intermediate);
  if (!joint) return pixels + layer + t * static_cast<u64>(m.vision_heads) * n * n;
  const u64 kept = t * n * static_cast<u64>(m.vision_kept_states * m.vision_hidden);
  const u64 features = t * n * static_cast<u64>(2 * m.vision_output_width + m.hidden);
  return pixels + kept + std::max(layer, features);
}

// The same for one decoder layer over the prompt in prefill (grouped keys and values are
// expanded to every head for the causal pass), plus float32 logits for the last position.
u64 prefill_elements(const ModelShape& m, std::int64_t tokens) {
  const u64 t = static_cast<u64>(tokens);
  const u64 per_token =
      static_cast<u64>(4 * m.hidden + 2 * m.intermediate + 2 * m.heads * m.head_dim);
  return t * per_token + static_cast<u64>(m.heads) * t * t;
}

// The weights as held: dense in the dtype, or int8 (one byte each, one float32 scale per output
// row) plus the dequantize scratch buffer in the dtype.
u64 weight_bytes(const ModelShape& m, u64 dtype_bytes, bool int8) {
  if (!int8) return m.parameters * dtype_bytes;
  return (m.parameters - m.quantized_parameters) * dtype_bytes + m.quantized_parameters +
         m.added_int8_parameters + m.quantized_rows * 4 + m.scratch_elements * dtype_bytes;
}

}  // namespace

memory::Tier MemoryPlan::first_fitting() const {
  for (const TierPlan& t : tiers) {
    if (t.fits) return t.tier;
  }
  return tiers.empty() ? memory::Tier::Standard : tiers.back().tier;
}

MemoryPlan plan_memory(const PlanRequest& r) {
  MemoryPlan plan;
  plan.request = r;
  const ModelShape& m = r.model;
  const std::int64_t cache_tokens = r.prompt_tokens + r.max_new_tokens;
  // Keys and values, every layer: 2 · layers · kv_heads · head_dim per token.
  const u64 kv_per_token = 2 * static_cast<u64>(m.layers * m.kv_heads * m.head_dim);
  const u64 kv_elements = kv_per_token * static_cast<u64>(cache_tokens);
  const u64 kv_two_layers =
      m.layers > 0 ? kv_elements / static_cast<u64>(m.layers) * std::min<u64>(2, m.layers) : 0;
  const u64 activation_elements =
      std::max(vision_elements(m, r.tiles),
               prefill_elements(m, r.prompt_tokens) + m.prefill_image_elements) +
      static_cast<u64>(m.vocab);
  const u64 cross = m.cross_kv_elements;
  for (const memory::Tier tier : r.tiers) {
    TierPlan p;
    p.tier = tier;
    const TierTraits& trait = traits(tier);  // what the tier holds where (memory/tier.h)
    const bool cpu = !trait.on_device;
    const u64 bytes = cpu ? r.cpu_dtype_bytes : r.dtype_bytes;
    p.weights = weight_bytes(m, bytes, cpu ? r.cpu_int8 : r.int8);
    p.activations = activation_elements * bytes;
    p.overhead = cpu ? 0 : r.device_overhead;
    if (cpu) {
      p.kv_cache = (kv_elements + cross) * bytes;
      p.host_bytes = p.weights + p.kv_cache + p.activations;
    } else if (trait.cache == TierCache::kWithModel) {
      p.kv_cache = (kv_elements + cross) * bytes;
      p.device_bytes = p.weights + p.kv_cache + p.activations + p.overhead;
    } else {  // offloaded cache: two layer slots on the device, every layer in pinned host memory;
              // cross-attention K/V stay on the device (read by every token)
      p.kv_cache = (kv_two_layers + cross) * bytes;
      p.device_bytes = p.weights + p.kv_cache + p.activations + p.overhead;
      p.host_bytes = kv_elements * bytes;
    }
    p.fits = cpu || !r.device_budget || p.device_bytes <= *r.device_budget;
    plan.tiers.push_back(p);
  }
  return plan;
}

std::string shortfall(const MemoryPlan& plan) {
  const PlanRequest& r = plan.request;
  if (!r.device_budget || plan.tiers.empty() || plan.tiers.front().fits) return "";
  const TierPlan& first = plan.tiers.front();
  const TierPlan* smallest = nullptr;  // the device tier that needs least
  bool any_device_fits = false;
  for (const TierPlan& t : plan.tiers) {
    if (!traits(t.tier).on_device) continue;
    any_device_fits = any_device_fits || t.fits;
    if (smallest == nullptr || t.device_bytes < smallest->device_bytes) smallest = &t;
  }
  std::string why = std::string(to_string(first.tier)) + " does not fit: it needs " +
                    human_bytes(first.device_bytes) + " of the " + human_bytes(*r.device_budget) +
                    " budget (weights " + human_bytes(first.weights) + ")";
  if (!any_device_fits && smallest != nullptr) {
    why += "; no GPU tier fits (the smallest, " + std::string(to_string(smallest->tier)) +
           ", needs " + human_bytes(smallest->device_bytes) + ")";
  }
  if (!r.int8)
    why += "; model.quantization: int8 holds the language model's weights in a byte each";
  return why;
}

nlohmann::json to_json(const MemoryPlan& plan) {
  const PlanRequest& r = plan.request;
  nlohmann::json tiers = nlohmann::json::array();
  for (const TierPlan& t : plan.tiers) {
    tiers.push_back(
        {{"tier", std::string(to_string(t.tier))},
         {"weights", t.weights},
         {"kv_cache", t.kv_cache},
         {"activations", t.activations},
         {"overhead", t.overhead},
         {"spare", r.device_budget && t.device_bytes <= *r.device_budget && traits(t.tier).on_device
                       ? nlohmann::json(*r.device_budget - t.device_bytes)
                       : nlohmann::json(nullptr)},
         {"device_bytes", t.device_bytes},
         {"host_bytes", t.host_bytes},
         {"fits", t.fits}});
  }
  return {{"tiles", r.tiles},
          {"prompt_tokens", r.prompt_tokens},
          {"max_new_tokens", r.max_new_tokens},
          {"quantization", r.int8 ? "int8" : "none"},
          {"cpu_quantization", r.cpu_int8 ? "int8" : "none"},
          {"device_overhead", r.device_overhead},
          {"device_budget",
           r.device_budget ? nlohmann::json(*r.device_budget) : nlohmann::json(nullptr)},
          {"first_fitting_tier", std::string(to_string(plan.first_fitting()))},
          {"shortfall", shortfall(plan)},
          {"tiers", tiers}};
}

std::string to_text(const MemoryPlan& plan) {
  const PlanRequest& r = plan.request;
  std::ostringstream out;
  out << "memory plan: " << r.tiles << " tiles, " << r.prompt_tokens << " prompt tokens + "
      << r.max_new_tokens << " new tokens";
  if (r.device_budget) out << ", device budget " << human_bytes(*r.device_budget);
  out << ", weights " << (r.int8 ? "int8" : "unquantized") << " (cpu tier "
      << (r.cpu_int8 ? "int8" : "unquantized") << ")";
  if (r.device_overhead > 0) out << ", CUDA context estimate " << human_bytes(r.device_overhead);
  out << '\n';
  char line[240];
  std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %12s %12s %12s  %s\n", "tier", "weights",
                "kv cache", "activations", "device", "host", "spare", "fits");
  out << line;
  for (const TierPlan& t : plan.tiers) {
    const bool spare =
        r.device_budget && traits(t.tier).on_device && t.device_bytes <= *r.device_budget;
    std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %12s %12s %12s  %s\n",
                  std::string(to_string(t.tier)).c_str(), human_bytes(t.weights).c_str(),
                  human_bytes(t.kv_cache).c_str(), human_bytes(t.activations).c_str(),
                  human_bytes(t.device_bytes).c_str(), human_bytes(t.host_bytes).c_str(),
                  spare ? human_bytes(*r.device_budget - t.device_bytes).c_str() : "-",
                  t.fits ? "yes" : "no");
    out << line;
  }
  out << "  start at: " << to_string(plan.first_fitting())
      << " (activations are an upper estimate)\n";
  if (const std::string why = shortfall(plan); !why.empty()) out << "  " << why << '\n';
  return out.str();
}

}  // namespace docsift::memory
