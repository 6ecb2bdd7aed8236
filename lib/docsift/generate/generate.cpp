#include "docsift/generate/generate.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/logsumexp.h>
#include <ATen/ops/multinomial.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <chrono>
#include <string_view>
#include <tuple>
#include <vector>

#include "docsift/error.h"
#include "docsift/stopwatch.h"

namespace docsift::generate {
namespace {

// Timings are only true once queued GPU work has finished.
void synchronize(const at::Tensor& t) {
  if (t.defined() && t.is_cuda()) (void)t.sum().item<float>();
}

using Before = std::function<void(Stage, int)>;
using IsStop = std::function<bool(int32_t)>;

// The picks' log-probabilities as 0-dim tensors on the logits' device, read to the host in one
// copy when decoding ends: each step then reads one device value (the next token's id), not two,
// so a CUDA-graph decode keeps its single sync per step (docs/decoding.md, "Confidence").
class DeferredLogprobs {
 public:
  // The pick's log-probability under `logits` ([vocab]); returns its slot.
  std::size_t add(const at::Tensor& logits, int64_t index) {
    pending_.push_back(
        logits.select(0, index).sub(at::logsumexp(logits, 0)));  // as token_logprob computes it
    return pending_.size() - 1;
  }
  // Every slot's value, in order (one device-to-host copy).
  std::vector<double> read() const {
    if (pending_.empty()) return {};
    const at::Tensor all = at::stack(pending_).to(at::kCPU).to(at::kDouble).contiguous();
    const double* data = all.data_ptr<double>();
    return {data, data + all.numel()};
  }

 private:
  std::vector<at::Tensor> pending_;
};

// The type value under the trie: only candidates that continue a type value compete for the
// argmax; "\n" competes too once the value is whole and another type value extends it. Ties go to
// the lowest id, as argmax over the masked vocabulary would. `logprob`, when asked: the pick's
// log-probability among the allowed tokens (the softmax of their logits alone).
int32_t pick_type_token(const at::Tensor& logits, const KeyPlan& plan, const std::string& written,
                        bool& complete, double* logprob) {
  std::vector<int64_t> allowed;
  complete = false;
  for (const std::string& v : plan.type_values) complete = complete || v == written;
  for (std::size_t i = 0; i < plan.type_candidates.size(); ++i) {
    const std::string next = written + plan.type_candidate_bytes[i];
    for (const std::string& v : plan.type_values) {
      if (std::string_view(v).substr(0, next.size()) == next) {
        allowed.push_back(plan.type_candidates[i]);
        break;
      }
    }
  }
  if (allowed.empty()) return -1;  // the value is whole and nothing extends it
  if (complete) allowed.push_back(plan.newline);
  std::sort(allowed.begin(), allowed.end());
  const at::Tensor ids = at::tensor(allowed, at::kLong).to(logits.device());
  const at::Tensor masked = logits.index_select(0, ids);  // [allowed]
  const int64_t best = masked.argmax().item<int64_t>();
  if (logprob != nullptr) *logprob = token_logprob(masked, best);
  return static_cast<int32_t>(allowed[static_cast<std::size_t>(best)]);
}

// `keys` decoding's state across a page's asked fields: docsift writes each field's key, the model
// its value (generate/keys.h).
class KeyDecoder {
 public:
  KeyDecoder(family::Sequence& sequence, const KeyPlan& plan, const Before& before,
             const IsStop& is_stop, int64_t budget, bool logprobs, GenerationResult& result)
      : sequence_(sequence),
        plan_(plan),
        before_(before),
        is_stop_(is_stop),
        budget_(budget),
        logprobs_(logprobs),
        result_(result) {}

  // `logits` are the prompt's last.
  void run(at::Tensor logits);

 private:
  at::Tensor extend(const std::vector<int32_t>& key);
  at::Tensor feed(int32_t token);  // one decode step
  void ask(int index);
  std::string type_name() const;
  void read_deferred();

  family::Sequence& sequence_;
  const KeyPlan& plan_;
  const Before& before_;
  const IsStop& is_stop_;
  const int64_t budget_;
  const bool logprobs_;
  GenerationResult& result_;
  at::Tensor logits_;
  std::vector<int32_t> pending_;  // picked but not yet fed: the last value token, or its newline
  bool after_newline_ = true;     // the prompt ends with a newline; so does a value ended by one
  std::string document_type_;
  // Slots of deferred (non-type) log-probabilities: (value index, position in its logprobs, or -1
  // for its stop_logprob). The type's picks are read at once: the trie needs the host anyway.
  DeferredLogprobs deferred_;
  std::vector<std::tuple<std::size_t, int, std::size_t>> slots_;
};

void KeyDecoder::run(at::Tensor logits) {
  logits_ = std::move(logits);
  if (plan_.routes()) ask(plan_.type_field);
  const std::string type = type_name();
  for (int i = 0; i < static_cast<int>(plan_.fields.size()) && result_.generated < budget_; ++i) {
    if (i == plan_.type_field) continue;
    const KeyedField& field = plan_.fields[static_cast<std::size_t>(i)];
    const bool applies = !plan_.routes() || field.field.applies(type);
    if (applies) ask(i);
  }
  read_deferred();
}

at::Tensor KeyDecoder::extend(const std::vector<int32_t>& key) {
  std::vector<int32_t> chunk = std::move(pending_);
  pending_.clear();
  chunk.insert(chunk.end(), key.begin(), key.end());
  result_.tokens.insert(result_.tokens.end(), key.begin(), key.end());
  result_.forced += static_cast<int64_t>(key.size());
  before_(Stage::kExtend, ++result_.extends);
  return sequence_.extend(chunk);
}

at::Tensor KeyDecoder::feed(int32_t token) {
  pending_.clear();
  before_(Stage::kDecode, ++result_.decode_steps);
  return sequence_.decode(token);
}

void KeyDecoder::ask(int index) {
  const KeyedField& field = plan_.fields[static_cast<std::size_t>(index)];
  logits_ = extend(after_newline_ ? field.key : field.newline_key);
  KeyedValue value;
  value.field = index;
  const bool type = index == plan_.type_field;
  std::string written;  // the type value's bytes so far
  while (true) {
    int32_t next = -1;
    double logprob = 0;
    if (type) {
      bool complete = false;
      next = pick_type_token(logits_, plan_, written, complete, logprobs_ ? &logprob : nullptr);
      if (next < 0) {  // whole: docsift writes the newline with the next key
        value.end = ValueEnd::kType;
        break;
      }
    } else {
      next = static_cast<int32_t>(logits_.argmax().item<int64_t>());
      if (is_stop_(next)) {  // not fed: docsift goes on with the next key
        value.end = ValueEnd::kStop;
        if (logprobs_) {  // the model's word that the value is whole
          value.stop_logprob = 0;
          slots_.emplace_back(result_.values.size(), -1, deferred_.add(logits_, next));
        }
        break;
      }
      if (logprobs_) {
        const int position = static_cast<int>(value.logprobs.size());
        slots_.emplace_back(result_.values.size(), position, deferred_.add(logits_, next));
      }
    }
    if (logprobs_) value.logprobs.push_back(logprob);
    value.tokens.push_back(next);
    result_.tokens.push_back(next);
    ++result_.generated;
    pending_ = {next};
    const auto id = static_cast<std::size_t>(next);
    if (next == plan_.newline || (id < plan_.ends_line.size() && plan_.ends_line[id])) {
      value.end = ValueEnd::kNewline;
      break;
    }
    if (result_.generated >= budget_) {  // the page's budget is spent: this value ends here
      value.end = ValueEnd::kCap;
      break;
    }
    if (type) {
      written += plan_.type_candidate_bytes[static_cast<std::size_t>(
          std::find(plan_.type_candidates.begin(), plan_.type_candidates.end(), next) -
          plan_.type_candidates.begin())];
    } else if (static_cast<int>(value.tokens.size()) >= field.max_tokens) {
      value.end = ValueEnd::kCap;
      break;
    }
    logits_ = feed(next);
  }
  after_newline_ = value.end == ValueEnd::kNewline;
  if (type) document_type_ = written;
  result_.values.push_back(std::move(value));
}

// The type's name as the schema spells it (the value carries the leading space).
std::string KeyDecoder::type_name() const {
  std::string name;
  for (std::size_t i = 0; i < plan_.type_values.size(); ++i) {
    if (plan_.type_values[i] == document_type_) name = plan_.type_names[i];
  }
  return name;
}

// The deferred log-probabilities into their values' slots (one device-to-host copy).
void KeyDecoder::read_deferred() {
  const std::vector<double> read = deferred_.read();
  for (const auto& [value, position, slot] : slots_) {
    KeyedValue& v = result_.values[value];
    if (position < 0) {
      v.stop_logprob = read[slot];
    } else {
      v.logprobs[static_cast<std::size_t>(position)] = read[slot];
    }
  }
}

// `keys` decoding after the prompt's prefill (generate/keys.h). `logits` are the prompt's last.
// `budget`: the most tokens the model picks for the page (max_new_tokens); when it is spent the
// value being written ends there and the fields not yet asked are N/A. `logprobs`: record each
// pick's log-probability in its KeyedValue.
void decode_keys(family::Sequence& sequence, at::Tensor logits, const KeyPlan& plan,
                 const Before& before, const IsStop& is_stop, int64_t budget, bool logprobs,
                 GenerationResult& result) {
  KeyDecoder(sequence, plan, before, is_stop, budget, logprobs, result).run(std::move(logits));
}

}  // namespace

// At most a few hundred microseconds for a 151,674-token row on 2 cores: under 0.2 % of a 1B
// model's decode step (bench/generate/README.md, "Confidence cost").
double token_logprob(const at::Tensor& logits, int64_t i) {
  return logits.select(0, i).sub(at::logsumexp(logits, 0)).item<double>();
}

int32_t pick_token(const at::Tensor& logits, const GenerationOptions& options,
                   at::Generator& generator) {
  if (options.greedy || options.temperature <= 0.0)
    return static_cast<int32_t>(logits.argmax().item<int64_t>());
  at::Tensor probs = at::softmax(logits.to(at::kCPU).to(at::kFloat).div(options.temperature), -1);
  if (options.top_p < 1.0) {
    // Keep the most likely tokens until their mass reaches top_p (always at least one).
    auto [sorted, order] = at::sort(probs, -1, /*descending=*/true);
    const at::Tensor before =
        sorted.cumsum(-1).sub(sorted);  // mass of the strictly more likely tokens
    sorted.masked_fill_(before.ge(options.top_p), 0.0);
    probs = at::zeros_like(probs).scatter_(-1, order, sorted);
  }
  return static_cast<int32_t>(at::multinomial(probs, 1, false, generator).item<int64_t>());
}

at::Tensor teacher_forced_logits(const family::Model& model, const family::ImageInputs& image,
                                 const std::vector<int32_t>& prompt,
                                 const std::vector<int32_t>& tokens) {
  if (prompt.empty() || tokens.empty())
    throw Error("teacher_forced_logits: the prompt and the tokens must not be empty");
  const at::Tensor state = image.defined() ? model.encode_image(image) : at::Tensor();
  auto sequence = model.start(state, image, static_cast<int64_t>(prompt.size() + tokens.size()),
                              model::CachePlacement::kDevice);
  std::vector<at::Tensor> logits{sequence->prefill(prompt).cpu()};
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
    logits.push_back(sequence->decode(tokens[i]).cpu());
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
    if (options.interrupt && options.interrupt())
      throw StopRequested("generation interrupted: a stop was requested");
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
  // keys: the keys, and the values up to their caps and the page's max_new_tokens.
  const int64_t room =
      options.keys ? options.keys->stream_tokens(options.max_new_tokens) : options.max_new_tokens;
  const std::unique_ptr<family::Sequence> sequence =
      model.start(image_state, image, result.prompt_tokens + room, options.cache);
  image_state.reset();  // the sequence holds what it needs of it
  sequence->allow_graphs(options.cuda_graphs);
  at::Tensor logits = sequence->prefill(prompt);
  // After prefill: cross-attention keys and values exist only from then on.
  result.cache_device_bytes = sequence->device_bytes();
  result.cache_host_bytes = sequence->host_bytes();
  result.first_logits = logits.to(at::kCPU);
  const auto is_stop = [&](int32_t id) {
    return std::find(options.stop_ids.begin(), options.stop_ids.end(), id) !=
           options.stop_ids.end();
  };
  if (options.keys) {
    result.prefill_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    decode_keys(*sequence, logits, *options.keys, before, is_stop, options.max_new_tokens,
                options.logprobs, result);
    result.decode_seconds = seconds_since(start);
    return result;
  }
  int32_t next = pick_token(logits, options, generator);
  result.prefill_seconds = seconds_since(start);

  start = std::chrono::steady_clock::now();
  DeferredLogprobs deferred;
  while (true) {
    // Under the model's own distribution (the raw logits), whatever temperature and top-p drew it.
    if (options.logprobs) deferred.add(logits, next);
    if (is_stop(next)) {
      result.stop_token = next;
      break;
    }
    result.tokens.push_back(next);
    ++result.generated;
    if (static_cast<int>(result.tokens.size()) >= options.max_new_tokens) break;
    before(Stage::kDecode, ++result.decode_steps);
    logits = sequence->decode(next);
    next = pick_token(logits, options, generator);
  }
  if (options.logprobs) {
    result.logprobs = deferred.read();  // one per pick, the stop's last when one ended the answer
    if (result.stop_token >= 0) {
      result.stop_logprob = result.logprobs.back();
      result.logprobs.pop_back();
    }
  }
  result.decode_seconds = seconds_since(start);
  return result;
}

}  // namespace docsift::generate
