// RoPE frequencies and tables against transformers' LlamaRotaryEmbedding
// (scripts/make_rope_vectors.py): the default rule and llama3 scaling (Llama 3.2 Vision's text
// model), parsed from a config as a checkpoint writes it. Multimodal RoPE (model/mrope.h) against
// transformers' Qwen2.5-VL and Qwen3-VL rotary embeddings and Qwen3-VL's position ids for an image
// (scripts/make_mrope_vectors.py): both layouts of mrope_section.
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/model/blocks.h"
#include "docsift/model/decoder.h"
#include "docsift/model/mrope.h"

#include <doctest/doctest.h>

namespace {

const std::filesystem::path kVectors =
    std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/rope/inv_freq.json";
const std::filesystem::path kMropeVectors =
    std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/rope/mrope.json";

// A Llama text config as config.json holds it, with the case's RoPE parameters.
nlohmann::json text_config(const nlohmann::json& c) {
  nlohmann::json rope = c["scaling"];
  rope["rope_theta"] = c["theta"];
  return {{"hidden_size", c["head_dim"].get<int>() * 4},
          {"num_hidden_layers", 1},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 1},
          {"head_dim", c["head_dim"]},
          {"intermediate_size", 8},
          {"vocab_size", 16},
          {"max_position_embeddings", 131072},
          {"rope_parameters", rope}};
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
    const auto decoder = docsift::model::parse_decoder_config(
        docsift::JsonFields(config, "config.json"), false, false);
    CHECK(decoder.rope.llama3 == (c["scaling"]["rope_type"] == "llama3"));
    const at::Tensor want = at::tensor(c["inv_freq"].get<std::vector<float>>());
    const at::Tensor got = docsift::model::rope_inv_freq(decoder.rope, 1, at::kCPU);
    REQUIRE(got.sizes() == want.sizes());
    const double freq_diff = got.sub(want).abs().div(want).max().item<double>();
    const auto positions = c["positions"].get<std::vector<int64_t>>();
    REQUIRE_FALSE(positions.empty());
    double table_diff = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const auto tables =
          docsift::model::rope_tables(decoder.rope, positions[i], 1, at::kFloat, at::kCPU);
      const at::Tensor cos = at::tensor(c["cos"][i].get<std::vector<float>>());
      const at::Tensor sin = at::tensor(c["sin"][i].get<std::vector<float>>());
      table_diff = std::max({table_diff, tables.cos[0].sub(cos).abs().max().item<double>(),
                             tables.sin[0].sub(sin).abs().max().item<double>()});
    }
    MESSAGE(c["name"].get<std::string>() << ": inv_freq max relative diff " << freq_diff
                                         << ", cos/sin max abs diff " << table_diff);
    CHECK(freq_diff <= 1e-6);
    CHECK(table_diff <= 1e-5);  // float32 sin/cos of positions up to 40,000
  }
}

TEST_CASE("RoPE config errors name the key: llama3 without its factors, an unknown rope type") {
  nlohmann::json config = {{"hidden_size", 64},
                           {"num_hidden_layers", 1},
                           {"num_attention_heads", 4},
                           {"intermediate_size", 8},
                           {"vocab_size", 16},
                           {"max_position_embeddings", 128},
                           {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}};
  CHECK_THROWS_WITH_AS(docsift::model::parse_decoder_config(
                           docsift::JsonFields(config, "config.json"), false, false),
                       doctest::Contains("low_freq_factor"), docsift::FileError);
  config["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
  CHECK_THROWS_WITH_AS(docsift::model::parse_decoder_config(
                           docsift::JsonFields(config, "config.json"), false, false),
                       doctest::Contains("supported: default, dynamic, llama3"),
                       docsift::FileError);
}

TEST_CASE("multimodal RoPE: the layouts of mrope_section over the frequencies") {
  using docsift::model::mrope_axes;
  using docsift::model::MropeLayout;
  CHECK(mrope_axes({2, 3, 3}, MropeLayout::kContiguous) ==
        std::vector<int64_t>{0, 0, 1, 1, 1, 2, 2, 2});
  // Rows at 1, 4, 7 (i % 3 == 1, i < 9), columns at 2, 5 (i % 3 == 2, i < 6), time elsewhere.
  CHECK(mrope_axes({3, 3, 2}, MropeLayout::kInterleaved) ==
        std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1});
  CHECK(mrope_axes({}, MropeLayout::kContiguous).empty());
}

TEST_CASE("multimodal RoPE: position ids and both layouts' tables equal transformers'") {
  std::ifstream in(kMropeVectors);
  REQUIRE_MESSAGE(in.good(), "run scripts/make_mrope_vectors.py");
  const auto vectors = nlohmann::json::parse(in);
  const auto& prompt = vectors["prompt"];
  const auto positions = docsift::model::mrope_positions(
      prompt["ids"].get<std::vector<int32_t>>(), prompt["image_token"].get<int32_t>(),
      prompt["rows"].get<int64_t>(), prompt["columns"].get<int64_t>());
  std::vector<int64_t> want_ids;
  for (const auto& axis : prompt["position_ids"]) {
    for (const auto& id : axis) want_ids.push_back(id.get<int64_t>());
  }
  CHECK(positions.ids.equal(
      at::tensor(want_ids).view({3, static_cast<int64_t>(prompt["ids"].size())})));
  CHECK(positions.delta == prompt["delta"].get<int64_t>());
  CHECK_THROWS_AS(docsift::model::mrope_positions(prompt["ids"].get<std::vector<int32_t>>(),
                                                  prompt["image_token"].get<int32_t>(), 2, 2),
                  docsift::Error);

  REQUIRE(vectors["cases"].size() == 4);  // scripts/make_mrope_vectors.py's cases
  for (const auto& c : vectors["cases"]) {
    CAPTURE(c["name"].get<std::string>());
    nlohmann::json config = text_config({{"head_dim", c["head_dim"]},
                                         {"theta", c["theta"]},
                                         {"scaling", {{"rope_type", "default"}}}});
    config["rope_parameters"]["mrope_section"] = c["mrope_section"];
    const auto decoder = docsift::model::parse_decoder_config(
        docsift::JsonFields(config, "config.json"), false, false);
    const auto layout = c["layout"] == "interleaved" ? docsift::model::MropeLayout::kInterleaved
                                                     : docsift::model::MropeLayout::kContiguous;
    const auto other = layout == docsift::model::MropeLayout::kInterleaved
                           ? docsift::model::MropeLayout::kContiguous
                           : docsift::model::MropeLayout::kInterleaved;
    std::vector<int64_t> ids;
    for (const auto& axis : c["positions"]) {
      for (const auto& id : axis) ids.push_back(id.get<int64_t>());
    }
    const at::Tensor ids3 = at::tensor(ids).view({3, -1});
    const auto tables =
        docsift::model::mrope_tables(decoder.rope, ids3, layout, at::kFloat, at::kCPU);
    std::vector<float> cos, sin;
    for (const auto& row : c["cos"]) {
      for (const auto& v : row) cos.push_back(v.get<float>());
    }
    for (const auto& row : c["sin"]) {
      for (const auto& v : row) sin.push_back(v.get<float>());
    }
    const at::Tensor want_cos = at::tensor(cos).view({ids3.size(1), 1, -1});
    const at::Tensor want_sin = at::tensor(sin).view({ids3.size(1), 1, -1});
    REQUIRE(tables.cos.sizes() == want_cos.sizes());
    const double diff = std::max(tables.cos.sub(want_cos).abs().max().item<double>(),
                                 tables.sin.sub(want_sin).abs().max().item<double>());
    MESSAGE(c["name"].get<std::string>() << ": cos/sin max abs diff " << diff);
    CHECK(diff <= 1e-5);  // float32 sin/cos of ids up to 40,000
    // The layout matters: the other one differs wherever the three ids do.
    const auto wrong =
        docsift::model::mrope_tables(decoder.rope, ids3, other, at::kFloat, at::kCPU);
    CHECK(wrong.cos.sub(want_cos).abs().max().item<double>() > 0.1);
  }
}
