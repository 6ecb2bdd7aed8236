// What the field confidences cost at decode: generation with the token log-probabilities
// (GenerationOptions::logprobs, on by default) against without, on one model in the same process.
// Each round runs both, the order alternating so drift falls on both. A step's time runs from one
// decode step's start to the next's, so it holds the forward pass, the pick and the pick's
// log-probability; a generation's figure is the median of its steps (robust to a busy neighbour's
// bursts on a shared machine), a round's the ratio of its two medians.
// On a shared machine a neighbour's load swings a step's time far more than 2 %, so it also runs
// generate()'s greedy loop by hand (family::Sequence, argmax, token_logprob) with the
// log-probability on every other step: adjacent steps see the same load, and the median of the
// pairs' ratios is the figure. Also times the added work alone: token_logprob on a [vocab] row.
//   docsift_bench_logprobs MODEL_DIR [--tokens 32] [--rounds 6] [--pairs 32] [--image FILE]
//   [--tiles 1] [--json OUT]
// CPU, float32, greedy free decoding with no stop ids: every generation runs exactly its token
// count. Figures: bench/generate/README.md. Not a test.
#include <ATen/Parallel.h>
#include <ATen/ops/randn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_args.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/stopwatch.h"

using namespace docsift;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string model_dir, image = "tests/fixtures/internvl/images/one_tile.png", json;
  int tokens = 32, rounds = 6, tiles = 1, pairs = 32;
  for (bench::Args a(argc, argv); a.next();) {
    const std::string f = a.arg();
    if (f == "--tokens")
      tokens = a.int_value();
    else if (f == "--rounds")
      rounds = a.int_value();
    else if (f == "--pairs")
      pairs = a.int_value();
    else if (f == "--image")
      image = a.value();
    else if (f == "--tiles")
      tiles = a.int_value();
    else if (f == "--json")
      json = a.value();
    else if (model_dir.empty() && !a.is_flag())
      model_dir = f;
    else
      a.unknown();
  }
  if (model_dir.empty() || tokens < 2 || rounds < 1) {
    throw std::runtime_error(
        "usage: docsift_bench_logprobs MODEL_DIR [--tokens N>=2] [--rounds N>=1] [--image FILE] "
        "[--tiles 1] [--json OUT]");
  }
  family::LoadedModel engine(model_dir);
  engine.load(at::kCPU, model::Numerics{at::kFloat});
  const family::Model& model = engine.model();
  const family::ImageInputs inputs =
      engine.family().preprocess(image::read_rgb_image(image), tiles);
  const std::vector<int32_t> prompt =
      engine.chat().encode("What is the total amount? Answer with TOTAL: value.", inputs.tiles);

  std::vector<Clock::time_point> marks;  // before each decode step
  generate::GenerationOptions options;
  options.max_new_tokens = tokens;
  options.before_stage = [&marks](generate::Stage stage, int) {
    if (stage == generate::Stage::kDecode) marks.push_back(Clock::now());
  };
  (void)generate::generate(model, inputs, prompt, options);  // warm-up
  std::vector<double> on_ms, off_ms, ratios;
  int64_t vocab = 0;
  for (int r = 0; r < rounds; ++r) {
    double ms[2] = {0, 0};  // [off, on]
    for (int k = 0; k < 2; ++k) {
      const bool on = (r + k) % 2 == 1;  // off first in even rounds, on first in odd ones
      options.logprobs = on;
      marks.clear();
      const auto result = generate::generate(model, inputs, prompt, options);
      const auto end = Clock::now();
      if (on && result.logprobs.size() != result.tokens.size())
        throw std::runtime_error("log-probabilities missing");
      vocab = result.first_logits.size(0);
      std::vector<double> steps;  // step 1 sizes buffers: left out
      for (std::size_t i = 1; i < marks.size(); ++i) {
        steps.push_back(std::chrono::duration<double, std::milli>(
                            (i + 1 < marks.size() ? marks[i + 1] : end) - marks[i])
                            .count());
      }
      ms[on ? 1 : 0] = median(steps);
    }
    off_ms.push_back(ms[0]);
    on_ms.push_back(ms[1]);
    ratios.push_back(ms[1] / ms[0]);
    std::fprintf(stderr, "round %d: off %.3f ms/step, on %.3f ms/step, on/off %.4f\n", r + 1, ms[0],
                 ms[1], ratios.back());
  }
  // Interleaved: step 2k without the log-probability, 2k+1 with it; a step is the pick (and its
  // log-probability) and the forward pass of the picked token, as in generate().
  std::vector<double> pair_ratios, inter_off, inter_on;
  {
    const at::Tensor state = model.encode_image(inputs);
    const auto sequence =
        model.start(state, inputs, static_cast<int64_t>(prompt.size()) + 2 * pairs + 2,
                    model::CachePlacement::kDevice);
    at::Tensor logits = sequence->prefill(prompt);
    double sink = 0, off_step = 0;
    for (int k = 0; k < 2 * pairs + 2; ++k) {
      const bool on = k % 2 == 1;
      const auto t = Clock::now();
      const auto next = static_cast<int32_t>(logits.argmax().item<int64_t>());
      if (on) sink += generate::token_logprob(logits, next);
      logits = sequence->decode(next);
      const double ms = 1e3 * seconds_since(t);
      if (k < 2) continue;  // the first pair sizes buffers
      if (on) {
        inter_on.push_back(ms);
        pair_ratios.push_back(ms / off_step);
      } else {
        inter_off.push_back(ms);
        off_step = ms;
      }
    }
    if (sink > 0)
      throw std::runtime_error(
          "a log-probability above 0");  // and keeps the sum from being optimised away
  }

  // The added work alone, on a row of the model's vocabulary: what a step pays for its pick's
  // log-probability.
  const at::Tensor row = at::randn({vocab});
  std::vector<double> op_us;
  for (int i = 0; i < 2000; ++i) {
    const auto t = Clock::now();
    (void)generate::token_logprob(row, i % vocab);
    op_us.push_back(1e6 * seconds_since(t));
  }
  const double off = median(off_ms), on = median(on_ms), op = median(op_us);
  const nlohmann::json out = {
      {"model", model_dir},
      {"threads", at::get_num_threads()},
      {"vocab", vocab},
      {"tokens", tokens},
      {"rounds", rounds},
      {"prompt_tokens", prompt.size()},
      {"decode_ms_per_step_off", off_ms},
      {"decode_ms_per_step_on", on_ms},
      {"median_off_ms", off},
      {"median_on_ms", on},
      {"median_round_ratio_on_over_off", median(ratios)},
      {"interleaved_pairs", pair_ratios.size()},
      {"interleaved_median_off_ms", median(inter_off)},
      {"interleaved_median_on_ms", median(inter_on)},
      {"interleaved_median_pair_ratio", median(pair_ratios)},
      {"interleaved_ratio_of_medians", median(inter_on) / median(inter_off)},
      {"logprob_us_per_step", op},
      {"logprob_share_of_step", op / 1e3 / off}};
  const std::string text = out.dump(1);
  std::printf("%s\n", text.c_str());
  if (!json.empty()) std::ofstream(json) << text << '\n';
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "docsift_bench_logprobs: %s\n", e.what());
  return 1;
}
