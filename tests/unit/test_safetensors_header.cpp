// Every malformed-header case is rejected with a FileError naming the file and the problem,
// without crashing and without allocating what the header claims.
#include <doctest/doctest.h>

#include <cstring>
#include <span>

#include "docsift/error.h"
#include "docsift/model/safetensors_header.h"
#include "support/safetensors_writer.h"

using docsift::FileError;
using docsift::model::parse_safetensors_header;
using docsift::testing::raw_safetensors;

namespace {

docsift::model::SafetensorsHeader parse(const std::string& bytes) {
  return parse_safetensors_header(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
      "bad.safetensors");
}

// The error must name the file and contain `expected`.
void check_rejects(const std::string& bytes, const std::string& expected) {
  CAPTURE(expected);
  try {
    parse(bytes);
    FAIL("header was accepted");
  } catch (const FileError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.starts_with("bad.safetensors: "));
    CHECK(what.find(expected) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}

const std::string k24Bytes(24, '\x01');

}  // namespace

TEST_CASE("a well-formed header parses with dtype, shape, offsets and metadata") {
  const auto h = parse(raw_safetensors(
      R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("a":{"dtype":"BF16","shape":[],"data_offsets":[24,26]},"z":{"dtype":"I64","shape":[0,4],"data_offsets":[26,26]}})",
      k24Bytes + "xy"));
  REQUIRE(h.tensors.size() == 3);
  CHECK(h.metadata.at("format") == "pt");
  CHECK(h.data_size == 26);
  // nlohmann's object keeps keys sorted, so tensors come out by name.
  CHECK(h.tensors[0].name == "a");
  const auto& b = h.tensors[1];
  CHECK(b.name == "b");
  CHECK(b.dtype == docsift::model::DType::F32);
  CHECK(b.shape == std::vector<std::int64_t>{2, 3});
  CHECK(b.numel() == 6);
  CHECK(b.nbytes() == 24);
  CHECK(h.tensors[0].shape.empty());
  CHECK(h.tensors[0].numel() == 1);
  CHECK(h.tensors[2].numel() == 0);
}

TEST_CASE("header length problems") {
  check_rejects("", "fewer than the 8-byte length");
  check_rejects("\x05\x00\x00", "fewer than the 8-byte length");
  check_rejects(raw_safetensors("{}", "", 1000), "runs past the end");
  // 2^64-1: must be refused from the number alone, never allocated.
  check_rejects(raw_safetensors("{}", "", ~0ULL), "exceeds the 100000000-byte limit");
  check_rejects(raw_safetensors("", ""), "header is empty");
}

TEST_CASE("JSON problems") {
  check_rejects(raw_safetensors(R"({"a":{"dtype":"F32","sha)"), "malformed JSON");
  check_rejects(raw_safetensors(R"([1,2,3])"), "top level is not a JSON object");
  check_rejects(raw_safetensors(R"({"a":[[[[[[[[1]]]]]]]]})"), "nests deeper");
  check_rejects(raw_safetensors(std::string(10000, '[') + std::string(10000, ']')), "nests deeper");
  check_rejects(
      raw_safetensors(
          R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
          "12345678"),
      "key 'a' appears more than once");
  check_rejects(raw_safetensors(R"({"__metadata__":{"k":1}})"), "__metadata__ value for 'k'");
  check_rejects(raw_safetensors(R"({"__metadata__":[1]})"), "__metadata__ is not an object");
}

TEST_CASE("entry problems") {
  check_rejects(raw_safetensors(R"({"a":5})"), "tensor 'a': entry is not an object");
  check_rejects(raw_safetensors(R"({"a":{"dtype":"F32","shape":[1]}})"),
                "needs dtype, shape and data_offsets");
  check_rejects(raw_safetensors(R"({"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})",
                                std::string(16, 'x')),
                "unknown dtype 'F128'");
  check_rejects(raw_safetensors(R"({"a":{"dtype":7,"shape":[1],"data_offsets":[0,4]}})", "1234"),
                "dtype is not a string");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "1234"),
      "shape must hold non-negative integers");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", "1234"),
      "shape must hold non-negative integers");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":"1","data_offsets":[0,4]}})", "1234"),
      "shape is not an array");
  check_rejects(
      raw_safetensors(
          R"({"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})",
          "1234"),
      "17 dimensions");
  check_rejects(
      raw_safetensors(
          R"({"a":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,4]}})",
          "1234"),
      "overflows");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", k24Bytes),
      "span 20 bytes but shape [2, 3] of F32 needs 24");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})", "short"),
      "run past the data section (5 bytes); the file may be truncated");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", "12345678"),
      "end before they begin");
  check_rejects(raw_safetensors(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", "1234"),
                "data_offsets must be [begin, end]");
  check_rejects(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", "1234"),
      "unexpected field 'x'");
  check_rejects(raw_safetensors(R"({"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "1234"),
                "empty name");
}

TEST_CASE("tensors may not share bytes") {
  check_rejects(
      raw_safetensors(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
          "123456789012"),
      "tensors 'a' and 'b' overlap");
  // Zero-size tensors occupy no bytes and may sit anywhere.
  CHECK_NOTHROW(parse(raw_safetensors(
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
      "12345678")));
}
