#include "docsift/generate/generate.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/multinomial.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <chrono>

#include "docsift/error.h"
#include "docsift/stopwatch.h"

namespace docsift::generate {
namespace {

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

at::Tensor teacher_forced_logits(const family::Model& model, const family::ImageInputs& image,
                                 const std::vector<int32_t>& prompt, const std::vector<int32_t>& tokens) {
  if (prompt.empty() || tokens.empty()) throw Error("teacher_forced_logits: the prompt and the tokens must not be empty");
  const at::Tensor state = image.defined() ? model.encode_image(image) : at::Tensor();
  auto sequence = model.start(state, image, static_cast<int64_t>(prompt.size() + tokens.size()),
                              model::CachePlacement::kDevice);
  std::vector<at::Tensor> logits{sequence->prefill(prompt).cpu()};
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) logits.push_back(sequence->decode(tokens[i]).cpu());
  return at::stack(logits);
}

GenerationResult generate(const family::Model& model, const family::ImageInputs& image,
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
  at::Tensor image_state;
  if (image.defined()) {
    before(Stage::kVision, 0);
    image_state = model.encode_image(image);
    synchronize(image_state);
  }
  result.vision_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  before(Stage::kPrefill, 0);
  const std::unique_ptr<family::Sequence> sequence =
      model.start(image_state, image, result.prompt_tokens + options.max_new_tokens, options.cache);
  image_state.reset();  // the sequence holds what it needs of it
  at::Tensor logits = sequence->prefill(prompt);
  // After prefill: cross-attention keys and values exist only from then on.
  result.cache_device_bytes = sequence->device_bytes();
  result.cache_host_bytes = sequence->host_bytes();
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
    logits = sequence->decode(next);
    next = pick_token(logits, options, generator);
  }
  result.decode_seconds = seconds_since(start);
  return result;
}

}  // namespace docsift::generate
