// Model confidences' bookkeeping (generate/confidence.h): the aggregates, which picks count for a
// field under keys and under free decoding, and that N/A fields get none. Agreement with
// transformers' probabilities is tests/parity/test_confidence.cpp.
#include <cmath>
#include <filesystem>
#include <limits>
#include <span>

#include "docsift/extract/response_parser.h"
#include "docsift/generate/confidence.h"
#include "docsift/text/tokenizer.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
namespace gen = docsift::generate;
using docsift::text::Tokenizer;

namespace {
const fs::path kTokenizers = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/tokenizers";
}  // namespace

TEST_CASE(
    "confidence aggregates: min, mean and product of a value's token probabilities, above 0 and at "
    "most 1") {
  const std::vector<double> lp{std::log(0.9), std::log(0.5), std::log(0.8)};
  CHECK(*gen::aggregate(lp, gen::Aggregate::kMin) == doctest::Approx(0.5));
  CHECK(*gen::aggregate(lp, gen::Aggregate::kMean) == doctest::Approx(std::cbrt(0.9 * 0.5 * 0.8)));
  CHECK(*gen::aggregate(lp, gen::Aggregate::kProduct) == doctest::Approx(0.9 * 0.5 * 0.8));
  CHECK_FALSE(gen::aggregate({}, gen::Aggregate::kMin).has_value());
  // A long run of unlikely picks underflows exp; the confidence stays above 0.
  const std::vector<double> tiny(200, -20.0);
  CHECK(*gen::aggregate(tiny, gen::Aggregate::kProduct) == std::numeric_limits<double>::min());
  CHECK(*gen::aggregate(std::vector<double>{0.0}, gen::Aggregate::kMean) == 1.0);
}

TEST_CASE(
    "keys: a field's evidence is its value's picks and the stop after it, and N/A fields have "
    "none") {
  const Tokenizer tokenizer = Tokenizer::load(kTokenizers / "tiny-qwen" / "tokenizer.json");
  gen::KeyPlan plan;
  for (const std::string name : {"DOCUMENT_TYPE", "TOTAL", "ABN", "SUPPLIER"}) {
    gen::KeyedField f;
    f.name = name;
    plan.fields.push_back(f);
  }
  plan.type_field = 0;
  gen::GenerationResult r;
  const auto value = [&](int field, const std::string& text, std::vector<double> logprobs,
                         std::optional<double> stop) {
    gen::KeyedValue v;
    v.field = field;
    v.tokens = tokenizer.encode(text);
    REQUIRE(v.tokens.size() == logprobs.size());
    v.logprobs = std::move(logprobs);
    v.stop_logprob = stop;
    r.values.push_back(v);
  };
  const auto tokens_of = [&](const std::string& text) { return tokenizer.encode(text).size(); };
  value(0, " RECEIPT", std::vector<double>(tokens_of(" RECEIPT"), std::log(0.7)), std::nullopt);
  value(1, " 12", std::vector<double>(tokens_of(" 12"), std::log(0.6)),
        std::log(0.2));  // ended by a stop token
  value(2, " N/A\n", std::vector<double>(tokens_of(" N/A\n"), std::log(0.99)), std::nullopt);
  // SUPPLIER not asked (outside the type): N/A, none.
  const auto values = docsift::extract::parse_response(
      gen::keyed_answer(plan, r.values, tokenizer), {"DOCUMENT_TYPE", "TOTAL", "ABN", "SUPPLIER"});
  const gen::Confidences c =
      gen::field_confidences(r, &plan, tokenizer, values, gen::Aggregate::kMin);
  CHECK(c.fields.size() == 2);
  CHECK(c.fields.at("DOCUMENT_TYPE") == doctest::Approx(0.7));
  CHECK(c.fields.at("TOTAL") ==
        doctest::Approx(0.2));  // the stop's doubt counts: is the amount whole?
  CHECK(*c.document_type == doctest::Approx(0.7));
  // Without log-probabilities (GenerationOptions::logprobs off), nothing.
  for (auto& v : r.values) {
    v.logprobs.clear();
    v.stop_logprob.reset();
  }
  CHECK(gen::field_confidences(r, &plan, tokenizer, values, gen::Aggregate::kMin).fields.empty());
}

TEST_CASE(
    "free: a value's evidence is the tokens that wrote its bytes through its newline, and the stop "
    "on the last line") {
  const std::vector<std::string> fields{"TOTAL", "SUPPLIER", "ABN", "DOCUMENT_TYPE"};
  for (const std::string name : {"tiny-qwen", "tiny-llama"}) {
    CAPTURE(name);
    const Tokenizer tokenizer = Tokenizer::load(kTokenizers / name / "tokenizer.json");
    const std::string text = "Here is the data:\n**TOTAL:** $5.00\nABN: N/A\nSUPPLIER: Acme Ltd";
    gen::GenerationResult r;
    r.tokens = tokenizer.encode(text);
    REQUIRE(tokenizer.decode(r.tokens, true) == text);
    // Token i's log-probability is -(i + 1), so the picks say which tokens counted.
    for (std::size_t i = 0; i < r.tokens.size(); ++i)
      r.logprobs.push_back(-static_cast<double>(i + 1));
    r.stop_logprob = -0.5;
    // Which tokens overlap bytes [a, b): by the lengths of the decoded prefixes (ASCII text).
    const auto expected = [&](std::size_t a, std::size_t b) {
      std::vector<double> out;
      for (std::size_t i = 0; i < r.tokens.size(); ++i) {
        const std::size_t from = tokenizer.decode(std::span(r.tokens).first(i), true).size();
        const std::size_t to = tokenizer.decode(std::span(r.tokens).first(i + 1), true).size();
        if (from < b && to > a) out.push_back(r.logprobs[i]);
      }
      return out;
    };
    const auto picks = gen::free_value_logprobs(r, tokenizer, fields);
    CHECK(picks.size() == 2);  // ABN is N/A; DOCUMENT_TYPE is absent
    const std::size_t total = text.find("$5.00");
    CHECK(picks.at("TOTAL") ==
          expected(total, text.find('\n', total) + 1));  // "**" after the key is not the value
    std::vector<double> supplier = expected(text.find("Acme"), text.size());
    supplier.push_back(-0.5);  // the last line: the stop token said the value was whole
    CHECK(picks.at("SUPPLIER") == supplier);

    const auto values = docsift::extract::parse_response(text, fields);
    const gen::Confidences c =
        gen::field_confidences(r, nullptr, tokenizer, values, gen::Aggregate::kMin);
    CHECK(c.fields.size() == 2);
    CHECK(c.fields.at("TOTAL") == doctest::Approx(std::exp(picks.at("TOTAL").back())));
    CHECK_FALSE(c.document_type.has_value());
  }
}

TEST_CASE("free: a character split across tokens counts every token that wrote it") {
  const Tokenizer tokenizer = Tokenizer::load(kTokenizers / "tiny-qwen" / "tokenizer.json");
  const std::string text = "TOTAL: 5\nSUPPLIER: Café 総額";
  gen::GenerationResult r;
  r.tokens = tokenizer.encode(text);
  for (std::size_t i = 0; i < r.tokens.size(); ++i)
    r.logprobs.push_back(-static_cast<double>(i + 1));
  const auto picks = gen::free_value_logprobs(r, tokenizer, {"TOTAL", "SUPPLIER"});
  // The SUPPLIER line's tokens: from the one that writes the value's first byte ("C") to the last;
  // no stop (none ended it). The ideograms' bytes are split over several tokens each.
  const std::size_t value = text.find("Caf");
  std::size_t key = 0;
  while (key < r.tokens.size() &&
         tokenizer.decode(std::span(r.tokens).first(key + 1), true).size() <= value)
    ++key;
  REQUIRE(key + 6 < r.tokens.size());
  std::vector<double> want;
  for (std::size_t i = key; i < r.tokens.size(); ++i) want.push_back(r.logprobs[i]);
  CHECK(picks.at("SUPPLIER") == want);
}
