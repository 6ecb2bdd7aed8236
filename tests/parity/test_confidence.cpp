// Model confidences against their Python reference (scripts/make_confidence_reference.py:
// transformers' logits, log_softmax of each step's, the same keys and free decoding as
// scripts/make_keys_reference.py) on the tiny InternVL3, Llama 3.2 Vision and Qwen3-VL fixtures,
// two images each: every pick's log-probability, the stop tokens', and each field's confidence
// under every aggregate (docs/decoding.md, "Confidence").
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/confidence.h"
#include "docsift/generate/generate.h"
#include "docsift/generate/keys.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::LoadedModel;
namespace gen = docsift::generate;

namespace {

const fs::path kRoot = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures";
// The tolerance against the Python reference, on probabilities (token and field) and on
// log-probabilities alike.
constexpr double kTolerance = 1e-5;

struct FamilyCase {
  std::string name;
  fs::path model, images;
  int max_tiles;
};

const FamilyCase kFamilies[] = {
    {"internvl", kRoot / "internvl/hf", kRoot / "internvl/images", 6},
    {"mllama", kRoot / "mllama/hub", kRoot / "mllama/images", 4},
    {"qwen3vl", kRoot / "qwen3vl/tf5", kRoot / "qwen3vl/images", 12},
};

// The largest differences seen, for the report.
struct Diff {
  double logprob = 0, probability = 0, confidence = 0;
  int tokens = 0, fields = 0;
};

void compare_logprob(double got, double want, Diff& d) {
  d.logprob = std::max(d.logprob, std::abs(got - want));
  d.probability = std::max(d.probability, std::abs(std::exp(got) - std::exp(want)));
  ++d.tokens;
  CHECK(std::abs(got - want) <= kTolerance);
}

void compare_logprobs(const std::vector<double>& got, const nlohmann::json& want, Diff& d) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) compare_logprob(got[i], want[i].get<double>(), d);
}

void compare_stop(const std::optional<double>& got, const nlohmann::json& want, Diff& d) {
  REQUIRE(got.has_value() == !want.is_null());
  if (got) compare_logprob(*got, want.get<double>(), d);
}

// docsift's confidences under each aggregate against the reference's {aggregate: {field:
// confidence}}.
void compare_confidences(const gen::GenerationResult& result, const gen::KeyPlan* plan,
                         const LoadedModel& engine,
                         const std::map<std::string, std::string>& values,
                         const nlohmann::json& want, Diff& d) {
  for (const auto& [aggregate, name] : gen::kAggregateNames) {
    CAPTURE(name);
    const gen::Confidences got =
        gen::field_confidences(result, plan, engine.tokenizer(), values, aggregate);
    const auto& w = want.at(std::string(name));
    CHECK(got.fields.size() == w.size());
    for (const auto& [field, confidence] : got.fields) {
      CAPTURE(field);
      REQUIRE(w.contains(field));
      CHECK(confidence > 0.0);
      CHECK(confidence <= 1.0);
      d.confidence = std::max(d.confidence, std::abs(confidence - w[field].get<double>()));
      ++d.fields;
      CHECK(std::abs(confidence - w[field].get<double>()) <= kTolerance);
    }
    if (w.contains(std::string(docsift::extract::kDocumentTypeField))) {
      REQUIRE(got.document_type.has_value());
      CHECK(*got.document_type == got.fields.at(std::string(docsift::extract::kDocumentTypeField)));
    }
  }
}

}  // namespace

TEST_CASE(
    "token log-probabilities and field confidences match the transformers reference, keys and "
    "free") {
  std::ifstream in(kRoot / "keys/confidence.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_confidence_reference.py");
  const auto ref = nlohmann::json::parse(in);
  const auto schema = docsift::extract::load_field_schema(kRoot / "keys/schema.yaml");
  const std::string question = docsift::extract::build_prompt(schema);
  for (const FamilyCase& family : kFamilies) {
    CAPTURE(family.name);
    LoadedModel engine(family.model);
    engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
    const auto plan =
        std::make_shared<const gen::KeyPlan>(gen::make_key_plan(schema, engine.tokenizer()));
    Diff keys_diff, free_diff;
    REQUIRE(ref[family.name].size() == 2);
    for (const auto& [image, want] : ref[family.name].items()) {
      CAPTURE(image);
      const auto inputs = engine.family().preprocess(
          docsift::image::read_rgb_image(family.images / (image + ".png")), family.max_tiles);
      const auto prompt = engine.chat().encode(question, inputs.prompt_units);

      gen::GenerationOptions keys;
      keys.keys = plan;
      keys.stop_ids = engine.chat().stop_ids();
      const auto k = gen::generate(engine.model(), inputs, prompt, keys);
      const auto& wk = want["keys"]["values"];
      REQUIRE(k.values.size() == wk.size());
      for (std::size_t i = 0; i < k.values.size(); ++i) {
        const gen::KeyedValue& v = k.values[i];
        CAPTURE(plan->fields[static_cast<std::size_t>(v.field)].name);
        CHECK(plan->fields[static_cast<std::size_t>(v.field)].name ==
              wk[i]["field"].get<std::string>());
        CHECK(v.tokens == wk[i]["tokens"].get<std::vector<int32_t>>());
        compare_logprobs(v.logprobs, wk[i]["logprobs"], keys_diff);
        compare_stop(v.stop_logprob, wk[i]["stop_logprob"], keys_diff);
      }
      const auto keyed = docsift::extract::parse_response(
          gen::keyed_answer(*plan, k.values, engine.tokenizer()), schema.names());
      compare_confidences(k, plan.get(), engine, keyed, want["keys"]["confidence"], keys_diff);

      gen::GenerationOptions free;
      free.max_new_tokens = ref["free_tokens"].get<int>();
      free.stop_ids = engine.chat().stop_ids();
      const auto f = gen::generate(engine.model(), inputs, prompt, free);
      CHECK(f.tokens == want["free"]["tokens"].get<std::vector<int32_t>>());
      compare_logprobs(f.logprobs, want["free"]["logprobs"], free_diff);
      compare_stop(f.stop_logprob, want["free"]["stop_logprob"], free_diff);
      const auto parsed = docsift::extract::parse_response(
          engine.tokenizer().decode(f.tokens, true), schema.names());
      compare_confidences(f, nullptr, engine, parsed, want["free"]["confidence"], free_diff);

      // Off: nothing recorded, the same tokens.
      keys.logprobs = false;
      const auto off = gen::generate(engine.model(), inputs, prompt, keys);
      CHECK(off.tokens == k.tokens);
      CHECK(std::all_of(off.values.begin(), off.values.end(), [](const gen::KeyedValue& v) {
        return v.logprobs.empty() && !v.stop_logprob;
      }));
    }
    for (const auto& [mode, d] :
         {std::pair{std::string("keys"), keys_diff}, std::pair{std::string("free"), free_diff}}) {
      MESSAGE(family.name << " " << mode << ": " << d.tokens
                          << " token log-probabilities, max |diff| " << d.logprob
                          << " (probability " << d.probability << "); " << d.fields
                          << " field confidences over 3 aggregates, max |diff| " << d.confidence);
    }
  }
}
