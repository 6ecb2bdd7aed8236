// `keys` decoding's rules (generate/keys.h, docs/decoding.md) under logits no model would give: a
// sequence whose every forward returns seeded random logits, so that over many pages each way a
// value ends (newline, stop token, cap) and every document type comes up. The sequence stands in
// for the model only; the decoding loop, the trie and the plan under test are docsift's own.
// Agreement with real models is tests/parity/test_keys.cpp.
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/randn.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "docsift/error.h"
#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"
#include "docsift/generate/generate.h"
#include "docsift/generate/keys.h"
#include "docsift/text/tokenizer.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
namespace gen = docsift::generate;
using docsift::text::Tokenizer;

namespace {

const fs::path kTokenizers = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/tokenizers";

// Every forward's logits: N(0, 4) per token from one seeded generator; every chunk fed is kept.
class RandomSequence final : public docsift::family::Sequence {
 public:
  RandomSequence(int64_t vocab, uint64_t seed, int64_t capacity,
                 std::vector<std::vector<int32_t>>& chunks)
      : vocab_(vocab),
        generator_(at::make_generator<at::CPUGeneratorImpl>(seed)),
        capacity_(capacity),
        chunks_(chunks) {}
  at::Tensor prefill(const std::vector<int32_t>& prompt) override { return forward(prompt); }
  at::Tensor extend(const std::vector<int32_t>& tokens) override {
    chunks_.push_back(tokens);
    return forward(tokens);
  }
  std::size_t device_bytes() const override { return 0; }
  std::size_t host_bytes() const override { return 0; }

 private:
  at::Tensor forward(const std::vector<int32_t>& tokens) {
    REQUIRE_FALSE(tokens.empty());
    length_ += static_cast<int64_t>(tokens.size());
    REQUIRE(length_ <= capacity_);  // the plan's bound held: a real KV cache would have room
    return at::randn({vocab_}, generator_).mul(4.0);
  }
  int64_t vocab_;
  at::Generator generator_;
  int64_t capacity_, length_ = 0;
  std::vector<std::vector<int32_t>>& chunks_;
};

class RandomModel final : public docsift::family::Model {
 public:
  RandomModel(int64_t vocab, uint64_t seed) : vocab_(vocab), seed_(seed) {}
  at::Device device() const override { return at::kCPU; }
  const docsift::model::Numerics& numerics() const override { return numerics_; }
  std::size_t parameter_bytes() const override { return 0; }
  std::size_t scratch_bytes() const override { return 0; }
  at::Tensor encode_image(const docsift::family::ImageInputs&) const override { return {}; }
  std::unique_ptr<docsift::family::Sequence> start(const at::Tensor&,
                                                   const docsift::family::ImageInputs&,
                                                   int64_t capacity,
                                                   docsift::model::CachePlacement) const override {
    return std::make_unique<RandomSequence>(vocab_, seed_, capacity, chunks);
  }
  mutable std::vector<std::vector<int32_t>> chunks;

 private:
  int64_t vocab_;
  uint64_t seed_;
  docsift::model::Numerics numerics_;
};

std::vector<int32_t> cat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE(
    "keys decoding under random logits: a schema type always, caps kept, every chunk as the rules "
    "say, every field parsed") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  for (const std::string name : {"tiny-qwen", "tiny-llama"}) {
    CAPTURE(name);
    const Tokenizer tokenizer = Tokenizer::load(kTokenizers / name / "tokenizer.json");
    const auto plan = std::make_shared<const gen::KeyPlan>(gen::make_key_plan(schema, tokenizer));
    REQUIRE(plan->routes());
    CHECK(plan->type_names == std::vector<std::string>{"TAX INVOICE", "RECEIPT", "BANK STATEMENT"});
    // A stop token of each kind a chat template has; ids near the end of the vocabulary are
    // special.
    const auto stop = tokenizer.token_to_id(name == "tiny-qwen" ? "<|im_end|>" : "<|eot_id|>");
    REQUIRE(stop);
    std::set<std::string> types;
    std::set<gen::ValueEnd> ends;
    for (uint64_t seed = 1; seed <= 120; ++seed) {
      CAPTURE(seed);
      RandomModel model(static_cast<int64_t>(tokenizer.vocab_size()), seed);
      gen::GenerationOptions options;
      options.keys = plan;
      options.stop_ids = {*stop};
      options.max_new_tokens = 100000;  // only the fields' caps bind
      const auto result = gen::generate(model, {}, {1, 2, 3}, options);
      const std::string answer = gen::keyed_answer(*plan, result.values, tokenizer);
      const auto fields = docsift::extract::parse_response(answer, schema.names());
      REQUIRE(fields.size() == schema.fields.size());
      // The type is a schema name, whatever the logits.
      const std::string type = fields.at("DOCUMENT_TYPE");
      REQUIRE(std::find(plan->type_names.begin(), plan->type_names.end(), type) !=
              plan->type_names.end());
      types.insert(type);
      // The answer is every field in schema order, those outside the type N/A.
      std::size_t at = 0;
      for (const auto& f : schema.fields) {
        const auto line = answer.find(f.name + ":", at);
        REQUIRE(line != std::string::npos);
        at = line;
        if (!f.applies(type)) CHECK(fields.at(f.name) == "N/A");
      }
      // Values: the type first, then the type's fields in order; each within its cap, ended as
      // recorded.
      REQUIRE(result.values.size() >= 1);
      CHECK(result.values.front().field == plan->type_field);
      int64_t generated = 0;
      for (const auto& v : result.values) {
        const auto& field = plan->fields[static_cast<std::size_t>(v.field)];
        generated += static_cast<int64_t>(v.tokens.size());
        ends.insert(v.end);
        if (v.field != plan->type_field)
          CHECK(static_cast<int>(v.tokens.size()) <= field.max_tokens);
        switch (v.end) {
          case gen::ValueEnd::kCap:
            CHECK(static_cast<int>(v.tokens.size()) == field.max_tokens);
            break;
          case gen::ValueEnd::kNewline:
            CHECK(plan->ends_line.at(static_cast<std::size_t>(v.tokens.back())));
            break;
          case gen::ValueEnd::kStop:
          case gen::ValueEnd::kType:
            break;
        }
        for (std::size_t i = 0; i + 1 < v.tokens.size(); ++i) {
          CHECK_FALSE(plan->ends_line.at(
              static_cast<std::size_t>(v.tokens[i])));  // a newline ends the value
        }
      }
      CHECK(result.generated == generated);
      // Each extend carries the tokens not yet fed, then the key: "NAME:" after a newline the
      // model wrote, "\nNAME:" after a cap, a stop or the type's last token.
      REQUIRE(model.chunks.size() >= result.values.size());
      std::size_t chunk = 0;
      for (std::size_t i = 0; i < result.values.size(); ++i) {
        const auto& field = plan->fields[static_cast<std::size_t>(result.values[i].field)];
        std::vector<int32_t> want = field.key;
        if (i > 0) {
          const auto& before = result.values[i - 1];
          // After a stop or a whole type value every picked token was already fed by a decode step.
          const bool fed_all =
              before.end == gen::ValueEnd::kStop || before.end == gen::ValueEnd::kType;
          want = cat(fed_all ? std::vector<int32_t>{} : std::vector<int32_t>{before.tokens.back()},
                     before.end == gen::ValueEnd::kNewline ? field.key : field.newline_key);
        }
        REQUIRE(chunk < model.chunks.size());
        CHECK(model.chunks[chunk] == want);
        // The key's chunk, then one decode step per token fed before the next key.
        const auto& v = result.values[i];
        const bool carried = v.end == gen::ValueEnd::kNewline || v.end == gen::ValueEnd::kCap;
        chunk += 1 + v.tokens.size() - (carried ? 1 : 0);
      }
      CHECK(chunk == model.chunks.size());
      CHECK(result.extends == static_cast<int>(result.values.size()));
      CHECK(result.extends + result.decode_steps == static_cast<int>(model.chunks.size()));
      CHECK(result.forced + result.generated == static_cast<int64_t>(result.tokens.size()));
    }
    // Over 120 pages every type and every way to end a value came up, so each path above ran.
    CHECK(types.size() == 3);
    CHECK(ends.size() == 4);  // kNewline, kCap, kStop and kType
  }
}

TEST_CASE("keys decoding: max_new_tokens caps the page's picks, the fields not reached are N/A") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const Tokenizer tokenizer = Tokenizer::load(kTokenizers / "tiny-qwen/tokenizer.json");
  const auto plan = std::make_shared<const gen::KeyPlan>(gen::make_key_plan(schema, tokenizer));
  for (const int budget : {1, 20, 70}) {
    CAPTURE(budget);
    RandomModel model(static_cast<int64_t>(tokenizer.vocab_size()), 7);
    gen::GenerationOptions options;
    options.keys = plan;  // no stop ids: only newlines, caps and the budget end values
    options.max_new_tokens = budget;
    const auto result = gen::generate(model, {}, {1, 2, 3}, options);
    CHECK(result.generated == budget);
    CHECK(result.values.back().end == gen::ValueEnd::kCap);
    const auto fields = docsift::extract::parse_response(
        gen::keyed_answer(*plan, result.values, tokenizer), schema.names());
    CHECK(fields.size() == schema.fields.size());
    CHECK(fields.at("DESCRIPTIONS") == "N/A");  // the last field: never reached
  }
}

TEST_CASE(
    "keys plan: keys tokenised as the template writes them, caps from the schema, the stream's "
    "bound") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const Tokenizer tokenizer = Tokenizer::load(kTokenizers / "tiny-qwen/tokenizer.json");
  const auto plan = gen::make_key_plan(schema, tokenizer);
  REQUIRE(plan.fields.size() == schema.fields.size());
  const auto newline = tokenizer.encode("\n");
  REQUIRE(newline.size() == 1);
  for (std::size_t i = 0; i < plan.fields.size(); ++i) {
    CAPTURE(plan.fields[i].name);
    CHECK(plan.fields[i].max_tokens == schema.fields[i].max_tokens);
    // Qwen2's pre-tokenizer splits a newline from the letters after it: "\nNAME:" is "\n" +
    // "NAME:", the split the whole answer's text gets.
    CHECK(plan.fields[i].newline_key == cat(newline, plan.fields[i].key));
    CHECK(tokenizer.decode(plan.fields[i].key) == plan.fields[i].name + ":");
  }
  CHECK(plan.fields[static_cast<std::size_t>(plan.type_field)].name == "DOCUMENT_TYPE");
  CHECK(plan.type_values ==
        std::vector<std::string>{" TAX INVOICE", " RECEIPT", " BANK STATEMENT"});
  // The bound covers every key, every cap, and the longest type value a byte a token.
  int64_t caps = 0;
  for (const auto& f : schema.fields) caps += f.name == "DOCUMENT_TYPE" ? 0 : f.max_tokens;
  CHECK(plan.max_stream_tokens() >
        caps + static_cast<int64_t>(std::string(" BANK STATEMENT").size()));
  // A schema without applies_to routes nothing: every field is asked.
  docsift::extract::FieldSchema flat = schema;
  for (auto& f : flat.fields) f.applies_to.clear();
  CHECK_FALSE(gen::make_key_plan(flat, tokenizer).routes());
}

TEST_CASE(
    "field schema: max_tokens read, defaulted by type, and refused out of range with file and "
    "line") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  CHECK(schema.find("PRICES")->max_tokens == 128);
  CHECK(schema.find("TOTAL")->max_tokens == 16);
  CHECK(docsift::extract::default_max_tokens(docsift::extract::FieldType::kText) == 32);
  CHECK(docsift::extract::default_max_tokens(docsift::extract::FieldType::kList) == 128);
  CHECK(schema.document_types() ==
        std::vector<std::string>{"TAX INVOICE", "RECEIPT", "BANK STATEMENT"});
  const fs::path dir =
      fs::temp_directory_path() / ("docsift_keys_schema_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const std::string& text) {
    const fs::path p = dir / "fields.yaml";
    std::FILE* f = std::fopen(p.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return p;
  };
  const auto plain = docsift::extract::load_field_schema(
      write("fields:\n  - {name: A, type: date, instruction: x}\n"));
  CHECK(plain.fields[0].max_tokens == 16);
  for (const std::string bad : {"0", "5000", "many"}) {
    CAPTURE(bad);
    try {
      docsift::extract::load_field_schema(
          write("fields:\n  - {name: A, type: text, instruction: x, max_tokens: " + bad + "}\n"));
      FAIL("accepted max_tokens " << bad);
    } catch (const docsift::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find("fields.yaml:2:") != std::string::npos);
      CHECK(what.find("max_tokens") != std::string::npos);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("keys decoding with extraction.tables asks each table after the fields, routed by type") {
  const auto schema = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const Tokenizer tokenizer = Tokenizer::load(kTokenizers / "tiny-qwen/tokenizer.json");
  const auto plain = docsift::generate::make_key_plan(schema, tokenizer);
  const auto tables = docsift::generate::make_key_plan(schema, tokenizer, /*tables=*/true);
  REQUIRE(plain.fields.size() == schema.fields.size());
  REQUIRE(tables.fields.size() == schema.fields.size() + 2);
  const auto& items = tables.fields[schema.fields.size()];
  CHECK(items.name == "LINE_ITEMS");
  CHECK(items.max_tokens == 768);
  CHECK(items.field.applies("RECEIPT"));
  CHECK_FALSE(items.field.applies("BANK STATEMENT"));
  CHECK(items.newline_key == tokenizer.encode("\nLINE_ITEMS:"));
  CHECK(tables.fields.back().name == "TRANSACTIONS");
  // The stream's bound grows by each table's key and cap: the KV cache is sized for them.
  CHECK(tables.max_stream_tokens() >= plain.max_stream_tokens() + 768 + 1024);
}
