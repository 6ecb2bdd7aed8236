#include "docsift/config/derive.h"

#include "docsift/model/precision.h"

namespace docsift::config {

family::FamilyOptions family_options(const Config& config) {
  return {config.model.family_settings, config.vision.resample, config.vision.max_pixels};
}

resilience::LadderSettings ladder_settings(const Config& config, c10::Device device) {
  resilience::LadderSettings s;
  s.tiers = config.memory.tiers;
  s.device = device;
  s.dtype = model::scalar_type(config.model.dtype);
  s.cpu_dtype = model::scalar_type(config.memory.cpu_dtype);
  s.quantization = config.model.quantization;
  s.cpu_quantization = config.memory.cpu_quantization;
  s.float16_residual = config.model.float16_residual;
  s.fused_norm = config.model.fused_norm;
  s.decode_kernels = config.model.decode_kernels;
  s.cleanup_threshold_bytes = static_cast<std::uint64_t>(config.memory.fragmentation_threshold_mb)
                              << 20;
  s.faults = resilience::FaultPlan::parse(config.testing.faults);
  s.faults.add(resilience::FaultPlan::from_environment());
  return s;
}

generate::GenerationOptions generation_options(const Config& config, int auto_max_new_tokens,
                                               std::vector<int32_t> stop_ids) {
  generate::GenerationOptions gen;
  gen.max_new_tokens = config.generation.max_new_tokens.value_or(auto_max_new_tokens);
  gen.temperature = config.generation.temperature;
  gen.top_p = config.generation.top_p;
  gen.seed = config.generation.seed;
  gen.cuda_graphs = config.generation.cuda_graphs;
  gen.greedy = config.generation.temperature <= 0.0;
  gen.stop_ids = std::move(stop_ids);
  return gen;
}

memory::PlanRequest plan_request(const Config& config, const memory::ModelShape& shape,
                                 std::int64_t tiles, std::int64_t prompt_tokens, int max_new_tokens,
                                 std::optional<std::uint64_t> device_budget,
                                 std::uint64_t device_overhead) {
  memory::PlanRequest r;
  r.model = shape;
  r.dtype_bytes = c10::elementSize(model::scalar_type(config.model.dtype));
  r.cpu_dtype_bytes = c10::elementSize(model::scalar_type(config.memory.cpu_dtype));
  r.int8 = config.model.quantization == model::Quantization::Int8;
  r.cpu_int8 = config.memory.cpu_quantization == model::Quantization::Int8;
  r.tiles = tiles;
  r.prompt_tokens = prompt_tokens;
  r.max_new_tokens = max_new_tokens;
  r.tiers = config.memory.tiers;
  r.device_budget = device_budget;
  r.device_overhead = device_overhead;
  return r;
}

}  // namespace docsift::config
