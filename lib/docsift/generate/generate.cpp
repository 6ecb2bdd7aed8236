#include "docsift/generate/generate.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/multinomial.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <chrono>

#include "docsift/error.h"

namespace docsift::generate {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Timings are only true once queued GPU work has finished.
void synchronize(const at::Tensor& t) {
  if (t.defined() && t.is_cuda()) (void)t.sum().item<float>();
}

}  // namespace

int32_t pick_token(const at::Tensor& logits, const GenerationOptions& options, at::Generator& generator) {
  if (options.greedy || options.temperature <= 0.0) return static_cast<int32_t>(logits.argmax().item<int64_t>());
  at::Tensor probs = at::softmax(logits.to(at::kCPU).to(at::kFloat).div(options.temperature), -1);
  if (options.top_p < 1.0) {
    // Keep the most likely tokens until their mass reaches top_p (always at least one).
    auto [sorted, order] = at::sort(probs, -1, /*descending=*/true);
    const at::Tensor before = sorted.cumsum(-1).sub(sorted);  // mass of the strictly more likely tokens
    sorted.masked_fill_(before.ge(options.top_p), 0.0);
    probs = at::zeros_like(probs).scatter_(-1, order, sorted);
  }
  return static_cast<int32_t>(at::multinomial(probs, 1, false, generator).item<int64_t>());
}

at::Tensor teacher_forced_logits(const model::InternVLModel& model, const at::Tensor& pixel_values,
                                 const std::vector<int32_t>& prompt, const std::vector<int32_t>& tokens) {
  if (prompt.empty() || tokens.empty()) throw Error("teacher_forced_logits: the prompt and the tokens must not be empty");
  auto cache = model.make_cache(static_cast<int64_t>(prompt.size() + tokens.size()));
  const at::Tensor ids = at::tensor(std::vector<int64_t>(prompt.begin(), prompt.end()), at::kLong);
  const at::Tensor features = pixel_values.defined() ? model.image_features(pixel_values) : at::Tensor();
  std::vector<at::Tensor> logits{model.forward(model.embed(ids, features), *cache).cpu()};
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const at::Tensor next = model.embed_tokens(at::tensor({static_cast<int64_t>(tokens[i])}, at::kLong)).unsqueeze(0);
    logits.push_back(model.forward(next, *cache).cpu());
  }
  return at::stack(logits);
}

GenerationResult generate(const model::InternVLModel& model, const at::Tensor& pixel_values,
                          const std::vector<int32_t>& prompt, const GenerationOptions& options) {
  if (prompt.empty()) throw Error("generate: the prompt is empty");
  if (options.max_new_tokens < 1) throw Error("generate: max_new_tokens must be at least 1");
  GenerationResult result;
  result.prompt_tokens = static_cast<int64_t>(prompt.size());
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);

  const auto before = [&](Stage stage, int step) {
    if (options.interrupt && options.interrupt()) throw Interrupted("generation interrupted: a stop was requested");
    if (options.before_stage) options.before_stage(stage, step);
  };
  auto start = std::chrono::steady_clock::now();
  at::Tensor features;
  if (pixel_values.defined()) {
    before(Stage::kVision, 0);
    features = model.image_features(pixel_values);
    synchronize(features);
  }
  result.vision_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  before(Stage::kPrefill, 0);
  const std::unique_ptr<model::KVCache> cache =
      model.make_cache(result.prompt_tokens + options.max_new_tokens, options.cache);
  result.cache_device_bytes = cache->device_bytes();
  result.cache_host_bytes = cache->host_bytes();
  std::vector<int64_t> ids64(prompt.begin(), prompt.end());
  const at::Tensor ids = at::tensor(ids64, at::kLong);
  at::Tensor logits = model.forward(model.embed(ids, features), *cache);
  features.reset();  // the merged embeddings hold what the decoder needs
  result.first_logits = logits.to(at::kCPU);
  int32_t next = pick_token(logits, options, generator);
  result.prefill_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  const auto is_stop = [&](int32_t id) {
    return std::find(options.stop_ids.begin(), options.stop_ids.end(), id) != options.stop_ids.end();
  };
  while (true) {
    if (is_stop(next)) {
      result.stop_token = next;
      break;
    }
    result.tokens.push_back(next);
    if (static_cast<int>(result.tokens.size()) >= options.max_new_tokens) break;
    before(Stage::kDecode, static_cast<int>(result.tokens.size()));
    const at::Tensor token = at::tensor({static_cast<int64_t>(next)}, at::kLong);
    logits = model.forward(model.embed_tokens(token).unsqueeze(0), *cache);
    next = pick_token(logits, options, generator);
  }
  result.decode_seconds = seconds_since(start);
  return result;
}

}  // namespace docsift::generate
