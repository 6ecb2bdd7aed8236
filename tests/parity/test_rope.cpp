// RoPE frequencies and tables against transformers' LlamaRotaryEmbedding (scripts/make_rope_vectors.py):
// the default rule and llama3 scaling (Llama 3.2 Vision's text model), parsed from a config as a
// checkpoint writes it.
#include <ATen/ops/tensor.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/model/blocks.h"
#include "docsift/model/decoder.h"

#include <doctest/doctest.h>

namespace {

const std::filesystem::path kVectors = std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/rope/inv_freq.json";

// A Llama text config as config.json holds it, with the case's RoPE parameters.
nlohmann::json text_config(const nlohmann::json& c) {
  nlohmann::json rope = c["scaling"];
  rope["rope_theta"] = c["theta"];
  return {{"hidden_size", c["head_dim"].get<int>() * 4}, {"num_hidden_layers", 1}, {"num_attention_heads", 4},
          {"num_key_value_heads", 1}, {"head_dim", c["head_dim"]}, {"intermediate_size", 8}, {"vocab_size", 16},
          {"max_position_embeddings", 131072}, {"rope_parameters", rope}};
}

}  // namespace

TEST_CASE("RoPE: default and llama3 frequencies and tables equal transformers'") {
  std::ifstream in(kVectors);
  REQUIRE_MESSAGE(in.good(), "run scripts/make_rope_vectors.py");
  const auto vectors = nlohmann::json::parse(in);
  REQUIRE(vectors["cases"].size() == 3);  // scripts/make_rope_vectors.py's cases
  for (const auto& c : vectors["cases"]) {
    CAPTURE(c["name"].get<std::string>());
    const nlohmann::json config = text_config(c);
    const auto decoder = docsift::model::parse_decoder_config(docsift::JsonFields(config, "config.json"), false, false);
    CHECK(decoder.rope.llama3 == (c["scaling"]["rope_type"] == "llama3"));
    const at::Tensor want = at::tensor(c["inv_freq"].get<std::vector<float>>());
    const at::Tensor got = docsift::model::rope_inv_freq(decoder.rope, 1, at::kCPU);
    REQUIRE(got.sizes() == want.sizes());
    const double freq_diff = got.sub(want).abs().div(want).max().item<double>();
    const auto positions = c["positions"].get<std::vector<int64_t>>();
    REQUIRE_FALSE(positions.empty());
    double table_diff = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const auto tables = docsift::model::rope_tables(decoder.rope, positions[i], 1, at::kFloat, at::kCPU);
      const at::Tensor cos = at::tensor(c["cos"][i].get<std::vector<float>>());
      const at::Tensor sin = at::tensor(c["sin"][i].get<std::vector<float>>());
      table_diff = std::max({table_diff, tables.cos[0].sub(cos).abs().max().item<double>(),
                             tables.sin[0].sub(sin).abs().max().item<double>()});
    }
    MESSAGE(c["name"].get<std::string>() << ": inv_freq max relative diff " << freq_diff << ", cos/sin max abs diff "
                                         << table_diff);
    CHECK(freq_diff <= 1e-6);
    CHECK(table_diff <= 1e-5);  // float32 sin/cos of positions up to 40,000
  }
}

TEST_CASE("RoPE config errors name the key: llama3 without its factors, an unknown rope type") {
  nlohmann::json config = {{"hidden_size", 64}, {"num_hidden_layers", 1}, {"num_attention_heads", 4},
                           {"intermediate_size", 8}, {"vocab_size", 16}, {"max_position_embeddings", 128},
                           {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}};
  CHECK_THROWS_WITH_AS(docsift::model::parse_decoder_config(docsift::JsonFields(config, "config.json"), false, false),
                       doctest::Contains("low_freq_factor"), docsift::FileError);
  config["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
  CHECK_THROWS_WITH_AS(docsift::model::parse_decoder_config(docsift::JsonFields(config, "config.json"), false, false),
                       doctest::Contains("supported: default, dynamic, llama3"), docsift::FileError);
}
