// `extraction.decoding: keys` and `free` against their Python reference
// (scripts/make_keys_reference.py: transformers, the same trie constraint, forced chunks through
// past_key_values, greedy) on the tiny InternVL3, Llama 3.2 Vision and Qwen2.5-VL fixtures, two
// images each: the same tokens, the same answer text, the same counts. Also keys on the offloaded
// cache tier (docs/decoding.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"
#include "docsift/family/loaded_model.h"
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

nlohmann::json reference() {
  std::ifstream in(kRoot / "keys/reference.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_keys_reference.py");
  return nlohmann::json::parse(in);
}

struct FamilyCase {
  std::string name;  // the reference's key
  fs::path model;    // checkpoint folder
  fs::path images;   // the family's fixture images
  int max_tiles;     // ignored by the Qwen families (their pixel budget sizes the image)
};

const FamilyCase kFamilies[] = {
    {"internvl", kRoot / "internvl/hf", kRoot / "internvl/images", 6},
    {"mllama", kRoot / "mllama/hub", kRoot / "mllama/images", 4},
    // transformers 5's layout (float32, untied lm_head): vision.resample auto is torchvision's
    // there, the image processor AutoProcessor picks for the reference.
    {"qwen25vl", kRoot / "qwen25vl/tf5", kRoot / "qwen25vl/images", 12},
    {"qwen3vl", kRoot / "qwen3vl/tf5", kRoot / "qwen3vl/images", 12},
};

std::vector<int32_t> ints(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

}  // namespace

TEST_CASE(
    "keys and free decoding match the transformers reference on all four families, two images "
    "each") {
  const auto ref = reference();
  const auto schema = docsift::extract::load_field_schema(kRoot / "keys/schema.yaml");
  const std::string question = docsift::extract::build_prompt(schema);
  CHECK(question == ref["question"].get<std::string>());
  for (const FamilyCase& family : kFamilies) {
    CAPTURE(family.name);
    const auto& want_family = ref[family.name];
    LoadedModel engine(family.model);
    engine.load(at::kCPU, docsift::model::Numerics{at::kFloat});
    auto stops = engine.chat().stop_ids();
    std::sort(stops.begin(), stops.end());
    CHECK(stops == ints(want_family["stop_ids"]));
    const auto plan =
        std::make_shared<const gen::KeyPlan>(gen::make_key_plan(schema, engine.tokenizer()));
    REQUIRE(want_family["images"].size() == 2);
    for (const auto& [image, want] : want_family["images"].items()) {
      CAPTURE(image);
      const auto inputs = engine.family().preprocess(
          docsift::image::read_rgb_image(family.images / (image + ".png")), family.max_tiles);
      const auto prompt = engine.chat().encode(question, inputs.prompt_units);
      REQUIRE(prompt == ints(want["prompt_ids"]));

      gen::GenerationOptions keys;
      keys.keys = plan;
      keys.stop_ids = engine.chat().stop_ids();
      const auto k = gen::generate(engine.model(), inputs, prompt, keys);
      const auto& wk = want["keys"];
      const std::string answer = gen::keyed_answer(*plan, k.values, engine.tokenizer());
      MESSAGE(family.name << " " << image << ": keys " << k.generated << " generated, " << k.forced
                          << " forced, " << k.extends << " extends; type"
                          << answer.substr(answer.find(':') + 1,
                                           answer.find('\n') - answer.find(':') - 1));
      CHECK(k.tokens == ints(wk["tokens"]));
      CHECK(answer == wk["text"].get<std::string>());
      CHECK(k.generated == wk["generated"].get<int64_t>());
      CHECK(k.forced == wk["forced"].get<int64_t>());
      CHECK(k.extends == wk["extends"].get<int>());
      CHECK(k.decode_steps == wk["decodes"].get<int>());
      // The answer parses to every field of the schema; those outside the type are N/A.
      const auto fields = docsift::extract::parse_response(answer, schema.names());
      CHECK(fields.size() == schema.fields.size());
      const std::string type = wk["document_type"].get<std::string>();
      for (const auto& f : schema.fields) {
        if (!f.applies(type)) CHECK(fields.at(f.name) == "N/A");
      }

      // The same page with the self-attention cache in host memory, as the offloaded tiers run it.
      keys.cache = docsift::model::CachePlacement::kOffloaded;
      CHECK(gen::generate(engine.model(), inputs, prompt, keys).tokens == k.tokens);

      gen::GenerationOptions free;
      free.max_new_tokens = ref["free_tokens"].get<int>();
      free.stop_ids = engine.chat().stop_ids();
      const auto f = gen::generate(engine.model(), inputs, prompt, free);
      CHECK(f.tokens == ints(want["free"]["tokens"]));
      CHECK(engine.tokenizer().decode(f.tokens, true) == want["free"]["text"].get<std::string>());
    }
  }
}
