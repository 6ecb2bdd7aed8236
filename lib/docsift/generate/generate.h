// The generation loop: prefill the prompt (with image features merged), then decode one token at
// a time until a stop token or max_new_tokens. The session owns the KV cache, so everything a
// generation allocates is released when generate() returns.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/family/family.h"
#include "docsift/generate/keys.h"

namespace docsift::generate {

// kExtend: forced text (a key) fed to the KV cache in one pass, `keys` decoding only.
enum class Stage { kVision, kPrefill, kDecode, kExtend };

struct GenerationOptions {
  int max_new_tokens = 256;
  bool greedy = true;
  double temperature = 1.0;  // sampling only
  double top_p = 1.0;  // sampling only: smallest set of tokens whose probability reaches top_p
  uint64_t seed = 0;   // sampling only
  std::vector<int32_t> stop_ids;
  // Set: `keys` decoding (generate/keys.h), which writes the keys itself and asks only the values
  // of the document type's fields, each capped by its max_tokens and all together by
  // max_new_tokens (the fields not reached are N/A); it is greedy, the sampling settings do not
  // apply. Null: free decoding.
  std::shared_ptr<const KeyPlan> keys;
  // Where the KV cache lives: on the model's device, or in host memory a layer at a time.
  model::CachePlacement cache = model::CachePlacement::kDevice;
  // Decode steps as CUDA graph replays where the family, device and cache allow it
  // (family::Sequence::allow_graphs; generation.cuda_graphs).
  bool cuda_graphs = true;
  // Record the log-probability of every token the model picks (GenerationResult::logprobs,
  // KeyedValue::logprobs), from the logits each step already computed: the field confidences
  // (generate/confidence.h). Off only to measure what it costs (bench/generate/bench_decode.cpp).
  bool logprobs = true;
  // Called before the vision encoder, before prefill, before each decode step and before each
  // extend (step counts decode steps, or extends, from 1; 0 elsewhere). Fault injection throws from
  // here; nothing else should.
  std::function<void(Stage, int step)> before_stage;
  // Asked before every stage: true abandons the generation (throws docsift::StopRequested,
  // error.h), e.g. when a stop signal's grace period is over. Nothing of the image is kept.
  std::function<bool()> interrupt;
};

struct GenerationResult {
  // Free: the generated ids, without the stop token. Keys: the whole stream after the prompt,
  // forced keys and generated values in the order the model saw them.
  std::vector<int32_t> tokens;
  int64_t generated = 0;  // ids the model picked (stop tokens not counted)
  int64_t forced = 0;     // keys: ids docsift fed as text it knew
  int decode_steps = 0, extends = 0;
  std::vector<KeyedValue> values;  // keys: each asked field's value, in the order asked
  int32_t stop_token = -1;         // the stop token that ended generation, or -1 (max_new_tokens)
  // Free, with GenerationOptions::logprobs: the natural log of the probability the model gave each
  // of `tokens` (log_softmax of the step's float32 logits, before temperature and top-p), and of
  // the stop token that ended generation. Keys: empty; each value carries its own.
  std::vector<double> logprobs;
  std::optional<double> stop_logprob;
  int64_t prompt_tokens = 0;
  double vision_seconds = 0, prefill_seconds = 0, decode_seconds = 0;
  std::size_t cache_device_bytes = 0, cache_host_bytes = 0;
  at::Tensor first_logits;  // float32 [vocab] after the prompt (for parity checks)
};

// `image` as the model's family preprocessed it (undefined pixel_values: text only); `prompt`
// the ids the family's chat template made for it.
GenerationResult generate(const family::Model& model, const family::ImageInputs& image,
                          const std::vector<int32_t>& prompt, const GenerationOptions& options);

// The logits at each generated position when `tokens` are fed after the prompt whatever the model
// would pick (teacher forcing): float32 [tokens.size(), vocab] on the CPU, row i the prediction of
// tokens[i]. Compares two numerics of one model position by position (int8 against float32).
at::Tensor teacher_forced_logits(const family::Model& model, const family::ImageInputs& image,
                                 const std::vector<int32_t>& prompt,
                                 const std::vector<int32_t>& tokens);

// The natural log of the probability float32 `logits` [n] give `index`: its logit less the
// logsumexp of them all (log_softmax at one index, without making the row), from logits a step
// already computed (docs/decoding.md, "Confidence"). Exposed for the bench.
double token_logprob(const at::Tensor& logits, int64_t index);

// Picks the next token from float32 logits [vocab]: argmax, or a seeded draw after temperature
// and top-p filtering. Exposed for tests.
int32_t pick_token(const at::Tensor& logits, const GenerationOptions& options,
                   at::Generator& generator);

}  // namespace docsift::generate
