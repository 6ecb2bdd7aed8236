// What `keys` decoding costs per step and per page (bench/decoding/README.md):
//   1. one extend of k tokens (k = 1..8) over the KV cache against one decode step, after the
//      prompt of a real page (the shipped schema's extraction prompt and one image);
//   2. one page under `keys` with every field capped at --cap tokens, against `free` writing the
//   same
//      answer text (its token count, no stop), wall time of both.
// Prints one JSON object. Random weights write no newline, so every value runs to its cap: the page
// figures compare equal answers, not a model's real ones.
//   docsift_bench_keys MODEL_DIR IMAGE [CAP] [REPEATS] [MAX_TILES]
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/generate/keys.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/stopwatch.h"

namespace gen = docsift::generate;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr, "usage: docsift_bench_keys MODEL_DIR IMAGE [CAP] [REPEATS] [MAX_TILES]\n");
    return 2;
  }
  const int cap = argc > 3 ? std::stoi(argv[3]) : 8;
  const int repeats = argc > 4 ? std::stoi(argv[4]) : 5;
  const int max_tiles = argc > 5 ? std::stoi(argv[5]) : 1;
  docsift::family::LoadedModel engine(argv[1]);
  engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
  const auto& model = engine.model();
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const auto inputs =
      engine.family().preprocess(docsift::image::read_rgb_image(argv[2]), max_tiles);
  const auto prompt = engine.chat().encode(docsift::extract::build_prompt(schema), inputs.tiles);
  nlohmann::json out = {{"model", argv[1]},
                        {"threads", at::get_num_threads()},
                        {"prompt_tokens", prompt.size()},
                        {"tiles", inputs.tiles},
                        {"repeats", repeats}};

  // 1. Step costs on one sequence after the prompt: each round a decode step, then extends of 1..8.
  const int64_t per_round = 1 + 36;
  auto sequence = model.start(model.encode_image(inputs), inputs,
                              static_cast<int64_t>(prompt.size()) + per_round * (repeats + 1),
                              docsift::model::CachePlacement::kDevice);
  at::Tensor logits = sequence->prefill(prompt);
  std::vector<double> decode_ms;
  std::vector<std::vector<double>> extend_ms(8);
  const int32_t filler = static_cast<int32_t>(logits.argmax().item<int64_t>());
  for (int r = 0; r <= repeats; ++r) {  // round 0 warms up
    auto t = docsift::Clock::now();
    (void)sequence->decode(filler);
    if (r > 0) decode_ms.push_back(docsift::seconds_since(t) * 1e3);
    for (int k = 1; k <= 8; ++k) {
      const std::vector<int32_t> chunk(static_cast<std::size_t>(k), filler);
      t = docsift::Clock::now();
      (void)sequence->extend(chunk);
      if (r > 0)
        extend_ms[static_cast<std::size_t>(k - 1)].push_back(docsift::seconds_since(t) * 1e3);
    }
  }
  sequence.reset();
  const double decode = median(decode_ms);
  out["decode_ms"] = decode;
  for (int k = 1; k <= 8; ++k) {
    const double e = median(extend_ms[static_cast<std::size_t>(k - 1)]);
    out["extend_ms"][std::to_string(k)] = e;
    out["extend_over_decode"][std::to_string(k)] = e / decode;
  }

  // 2. One page both ways. keys: every field capped at `cap`; free: the same answer's tokens.
  docsift::extract::FieldSchema capped = schema;
  for (auto& f : capped.fields) f.max_tokens = cap;
  gen::GenerationOptions keys;
  keys.keys = std::make_shared<const gen::KeyPlan>(gen::make_key_plan(capped, engine.tokenizer()));
  keys.stop_ids = engine.chat().stop_ids();
  const auto k = gen::generate(model, inputs, prompt, keys);
  const std::string answer = gen::keyed_answer(*keys.keys, k.values, engine.tokenizer());
  gen::GenerationOptions free;
  free.max_new_tokens =
      static_cast<int>(engine.tokenizer().encode(answer).size()) + 1;  // and the end token
  const auto f = gen::generate(model, inputs, prompt, free);  // no stop ids: exactly that many
  out["page"] = {{"cap", cap},
                 {"answer_tokens", free.max_new_tokens},
                 {"keys",
                  {{"generated", k.generated},
                   {"forced", k.forced},
                   {"extends", k.extends},
                   {"decode_steps", k.decode_steps},
                   {"decode_s", k.decode_seconds},
                   {"prefill_s", k.vision_seconds + k.prefill_seconds}}},
                 {"free",
                  {{"generated", f.generated},
                   {"decode_steps", f.decode_steps},
                   {"decode_s", f.decode_seconds},
                   {"prefill_s", f.vision_seconds + f.prefill_seconds}}},
                 {"decode_speedup", f.decode_seconds / k.decode_seconds},
                 {"page_speedup", (f.vision_seconds + f.prefill_seconds + f.decode_seconds) /
                                      (k.vision_seconds + k.prefill_seconds + k.decode_seconds)}};
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "docsift_bench_keys: %s\n", e.what());
  return 1;
}
