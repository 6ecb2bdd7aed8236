
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>

#include "docsift/error.h"
#include "docsift/model/checkpoint.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

using namespace docsift;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const char* kConfig = R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"})";

// Two shards and an index, as transformers writes them.
void write_sharded(const std::filesystem::path& dir, const std::string& index) {
  write_text(dir / "config.json", kConfig);
  testing::write_safetensors(dir / "model-00001-of-00002.safetensors",
                             {{"a", at::arange(4, at::kFloat)}, {"b", at::arange(2, at::kLong)}});
  testing::write_safetensors(dir / "model-00002-of-00002.safetensors",
                             {{"c", at::arange(3, at::kFloat)}});
  write_text(dir / "model.safetensors.index.json", index);
}

const char* kGoodIndex = R"({"metadata": {"total_size": 44}, "weight_map": {
  "a": "model-00001-of-00002.safetensors", "b": "model-00001-of-00002.safetensors",
  "c": "model-00002-of-00002.safetensors"}})";

}  // namespace

TEST_CASE("single-file checkpoint") {
  TempDir dir;
  write_text(dir / "config.json", kConfig);
  testing::write_safetensors(dir / "model.safetensors",
                             {{"w", at::arange(6, at::kFloat).view({2, 3})}});
  const model::Checkpoint ckpt(dir.path());
  CHECK(ckpt.config()["model_type"] == "qwen2");
  REQUIRE(ckpt.entries().size() == 1);
  CHECK(ckpt.find("w") != nullptr);
  CHECK(ckpt.find("x") == nullptr);
  CHECK(at::equal(ckpt.load("w", at::kFloat, at::kCPU), at::arange(6, at::kFloat).view({2, 3})));
  CHECK_THROWS_WITH_AS(ckpt.load("x", at::kFloat, at::kCPU), doctest::Contains("has no tensor 'x'"),
                       FileError);
}

TEST_CASE("sharded checkpoint through model.safetensors.index.json") {
  TempDir dir;
  write_sharded(dir.path(), kGoodIndex);
  const model::Checkpoint ckpt(dir.path());
  CHECK(ckpt.files().size() == 2);
  const auto entries = ckpt.entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0]->name == "a");
  CHECK(entries[2]->name == "c");
  CHECK(at::equal(ckpt.load("c", at::kFloat, at::kCPU), at::arange(3, at::kFloat)));
  CHECK(at::equal(ckpt.load("b", at::kLong, at::kCPU), at::arange(2, at::kLong)));
}

TEST_CASE("index problems are named") {
  TempDir dir;
  SUBCASE("missing shard") {
    write_sharded(dir.path(), R"({"weight_map": {"a": "model-00003-of-00003.safetensors"}})");
    CHECK_THROWS_WITH_AS(
        model::Checkpoint(dir.path()),
        doctest::Contains("lists shard model-00003-of-00003.safetensors, which is missing"),
        FileError);
  }
  SUBCASE("tensor not in its shard") {
    write_sharded(dir.path(), R"({"weight_map": {"a": "model-00002-of-00002.safetensors",
      "b": "model-00001-of-00002.safetensors", "c": "model-00002-of-00002.safetensors"}})");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()), doctest::Contains("tensor 'a'"), FileError);
  }
  SUBCASE("shard holds a tensor the index does not list") {
    write_sharded(dir.path(), R"({"weight_map": {"a": "model-00001-of-00002.safetensors",
      "c": "model-00002-of-00002.safetensors"}})");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()), doctest::Contains("holds tensor 'b'"),
                         FileError);
  }
  SUBCASE("path traversal") {
    write_sharded(dir.path(), R"({"weight_map": {"a": "../evil.safetensors"}})");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()),
                         doctest::Contains("not a .safetensors file name in the same folder"),
                         FileError);
  }
  SUBCASE("no weight_map") {
    write_sharded(dir.path(), R"({"metadata": {}})");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()), doctest::Contains("no \"weight_map\""),
                         FileError);
  }
  SUBCASE("malformed index JSON") {
    write_sharded(dir.path(), R"({"weight_map": {)");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()),
                         doctest::Contains("model.safetensors.index.json: malformed JSON"),
                         FileError);
  }
}

TEST_CASE("folder problems are named") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(model::Checkpoint(dir / "nope"), doctest::Contains("no such folder"),
                       InputMissingError);
  CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()), doctest::Contains("no config.json"),
                       FileError);
  write_text(dir / "config.json", "{\"architectures\": [");
  CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()),
                       doctest::Contains("config.json: malformed JSON"), FileError);
  write_text(dir / "config.json", kConfig);
  CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()), doctest::Contains("no model.safetensors"),
                       FileError);

  SUBCASE("pickled weights are refused, never loaded") {
    write_text(dir / "pytorch_model.bin", "not really a pickle");
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()),
                         doctest::Contains("pickled PyTorch weights (pytorch_model.bin)"),
                         FileError);
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir / "pytorch_model.bin"),
                         doctest::Contains("safe_serialization=True"), FileError);
  }
  SUBCASE("several safetensors files without an index") {
    testing::write_safetensors(dir / "x.safetensors", {{"a", at::arange(1, at::kFloat)}});
    testing::write_safetensors(dir / "y.safetensors", {{"b", at::arange(1, at::kFloat)}});
    CHECK_THROWS_WITH_AS(model::Checkpoint(dir.path()),
                         doctest::Contains("2 .safetensors files but no"), FileError);
  }
  SUBCASE("one differently named safetensors file is used") {
    testing::write_safetensors(dir / "weights.safetensors", {{"a", at::arange(1, at::kFloat)}});
    CHECK(model::Checkpoint(dir.path()).find("a") != nullptr);
  }
}
