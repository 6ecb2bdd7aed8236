// A memory plan: what one image needs on the device and on the host at each tier, predicted from
// the model's shapes, this image's token count and max_new_tokens, so the runner can start at a
// tier that fits instead of discovering the limit through out-of-memory.
//
// Activations are an upper estimate: a per-tile vision encoder's and the prefill's attention scores
// are counted as if materialised (the math SDPA path), which fused kernels avoid; an encoder over
// all its tiles at once runs without a mask and is counted without them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/memory/tier.h"

namespace docsift::memory {

// What the plan needs to know of a vision-language model.
struct ModelShape {
  std::uint64_t parameters = 0;
  // Decoder.
  std::int64_t layers = 0, heads = 0, kv_heads = 0, head_dim = 0, hidden = 0, intermediate = 0,
               vocab = 0;
  // Vision encoder, per tile: `vision_tokens` positions (patches + CLS) of width vision_hidden.
  std::int64_t vision_hidden = 0, vision_heads = 0, vision_intermediate = 0, vision_tokens = 0;
  std::int64_t image_size = 448;
  // An encoder that runs a fixed number of tiles whatever the image: `vision_joint_tiles` tiles as
  // one sequence, through mask-free attention (no score matrix); it keeps `vision_kept_states`
  // copies of its hidden states (intermediate layers' outputs, for its features) and hands on
  // `vision_output_width` channels per token. 0: the encoder runs the image's tiles each on its
  // own, with a score matrix per tile.
  std::int64_t vision_joint_tiles = 0, vision_kept_states = 0, vision_output_width = 0;
  // Elements prefill holds besides its own activations: image states kept until what the decoder
  // reads of them (cross-attention keys and values) is made. 0: none.
  std::uint64_t prefill_image_elements = 0;
  // Cross-attention keys and values of one image, all layers (elements; 0 without cross-attention).
  // They live on the compute device for the whole generation, in every tier.
  std::uint64_t cross_kv_elements = 0;
  // int8 weight-only quantization: parameters stored as int8 (part of `parameters`), int8 copies
  // added beside them (a tied lm_head), output rows (one float32 scale each), and the dequantize
  // scratch buffer in elements of the compute dtype.
  std::uint64_t quantized_parameters = 0, added_int8_parameters = 0, quantized_rows = 0,
                scratch_elements = 0;
};

// Device memory a card loses outside the caching allocator: the CUDA context (driver state and the
// kernels loaded lazily with CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) plus cuBLAS
// and cuDNN handles and workspaces. What `inspect --budget-gb` adds for a card of that size:
// measured 770.8 MiB after an 8B-shaped decode on an H200 (CUDA 13.0, driver 580, LibTorch 2.11;
// docs/gpu.md), rounded up. `run` needs none: its budget is what the allocator can still get,
// read after the context exists.
constexpr std::uint64_t kCudaContextEstimate = 800ull << 20;

struct PlanRequest {
  ModelShape model;
  std::size_t dtype_bytes = 2;        // model.dtype
  std::size_t cpu_dtype_bytes = 4;    // memory.cpu_dtype
  bool int8 = false;                  // model.quantization: int8 (device tiers)
  bool cpu_int8 = false;              // memory.cpu_quantization: int8 (the cpu tier)
  std::uint64_t device_overhead = 0;  // CUDA context and cuBLAS workspace (device_overhead_bytes)
  std::int64_t tiles = 1;
  std::int64_t prompt_tokens = 0;  // image tokens included
  std::int64_t max_new_tokens = 0;
  std::vector<memory::Tier> tiers;
  std::optional<std::uint64_t> device_budget;  // bytes the allocator may use; nullopt: unknown
};

struct TierPlan {
  memory::Tier tier = memory::Tier::Standard;
  std::uint64_t weights = 0, kv_cache = 0,
                activations = 0;   // on the tier's compute device (kv: cross K/V included)
  std::uint64_t overhead = 0;      // CUDA context and workspaces (device tiers)
  std::uint64_t device_bytes = 0;  // what the tier needs on the GPU (0 for cpu)
  std::uint64_t host_bytes = 0;    // what it needs in host memory beyond the process's baseline
  bool fits = true;                // device_bytes within the budget (always true without one)
};

struct MemoryPlan {
  PlanRequest request;
  std::vector<TierPlan> tiers;
  // The first tier predicted to fit, or the last tier when none does.
  memory::Tier first_fitting() const;
};

MemoryPlan plan_memory(const PlanRequest& request);

// Why the first tier does not fit the budget, and whether any GPU tier does ("" when it fits or
// there is no budget).
std::string shortfall(const MemoryPlan& plan);
nlohmann::json to_json(const MemoryPlan& plan);
std::string to_text(const MemoryPlan& plan);

}  // namespace docsift::memory
