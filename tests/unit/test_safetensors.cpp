
#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>

#include <fstream>

#include "docsift/error.h"
#include "docsift/model/safetensors.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

using namespace docsift;
using docsift::testing::TempDir;

TEST_CASE("round trip: every written tensor reads back bit-exact as a zero-copy view") {
  TempDir dir;
  const at::Tensor f32 = at::arange(12, at::kFloat).view({3, 4}) / 7.0;
  const at::Tensor f16 = at::arange(6, at::kFloat).to(at::kHalf).view({2, 3});
  const at::Tensor bf16 = (at::arange(10, at::kFloat) * 0.3).to(at::kBFloat16);
  const at::Tensor i64 = at::arange(-3, 4, at::kLong);
  const at::Tensor u8 = at::arange(5, at::kByte);
  const at::Tensor flags = at::arange(4, at::kLong).remainder(2).to(at::kBool);
  const at::Tensor scalar = at::arange(1, at::kFloat).view({});
  const at::Tensor empty = at::arange(0, at::kFloat).view({0, 3});
  const auto path = dir / "m.safetensors";
  testing::write_safetensors(path, {{"f32", f32},
                                    {"f16", f16},
                                    {"bf16", bf16},
                                    {"i64", i64},
                                    {"u8", u8},
                                    {"flags", flags},
                                    {"scalar", scalar},
                                    {"empty", empty}});

  at::Tensor kept;
  {
    const model::SafetensorsFile file(path);
    CHECK(file.header().tensors.size() == 8);
    CHECK(file.header().metadata.at("format") == "pt");
    for (const auto& [name, expected] : testing::NamedTensors{{"f32", f32},
                                                              {"f16", f16},
                                                              {"bf16", bf16},
                                                              {"i64", i64},
                                                              {"u8", u8},
                                                              {"flags", flags},
                                                              {"scalar", scalar},
                                                              {"empty", empty}}) {
      CAPTURE(name);
      const at::Tensor got = file.view(name);
      CHECK((got.scalar_type() == expected.scalar_type()));
      CHECK(got.sizes() == expected.sizes());
      CHECK(at::equal(got, expected));
    }
    // Zero-copy: two views of one tensor share the mapped bytes.
    CHECK(file.view("f32").data_ptr() == file.view("f32").data_ptr());
    kept = file.view("f32");
    CHECK_THROWS_AS(file.view("nope"), FileError);
  }
  // The view keeps the mapping alive after the file object is gone.
  CHECK(at::equal(kept, f32));
}

TEST_CASE("load converts dtype and leaves matching tensors as views") {
  TempDir dir;
  const at::Tensor bf16 = (at::arange(8, at::kFloat) / 3.0).to(at::kBFloat16);
  testing::write_safetensors(dir / "m.safetensors", {{"w", bf16}});
  const model::SafetensorsFile file(dir / "m.safetensors");
  const at::Tensor as_f32 = file.load("w", at::kFloat, at::kCPU);
  CHECK((as_f32.scalar_type() == at::kFloat));
  CHECK(at::equal(as_f32, bf16.to(at::kFloat)));
  CHECK(file.load("w", at::kBFloat16, at::kCPU).data_ptr() == file.view("w").data_ptr());
}

TEST_CASE("an unaligned data section still reads correctly") {
  TempDir dir;
  const at::Tensor f64 = at::arange(5, at::kDouble) * 1.25;
  testing::write_safetensors(dir / "u.safetensors", {{"x", f64}}, /*pad_to=*/1);
  const model::SafetensorsFile file(dir / "u.safetensors");
  CHECK(file.header().data_offset % 8 != 0);  // the case under test
  const at::Tensor got = file.view("x");
  CHECK(reinterpret_cast<std::uintptr_t>(got.data_ptr()) % 8 == 0);
  CHECK(at::equal(got, f64));
}

TEST_CASE("file-level errors name the file") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(model::SafetensorsFile(dir / "missing.safetensors"),
                       doctest::Contains("missing.safetensors: cannot open"), FileError);
  testing::write_bytes(dir / "zero.safetensors", "");
  CHECK_THROWS_WITH_AS(model::SafetensorsFile(dir / "zero.safetensors"),
                       doctest::Contains("zero.safetensors: invalid safetensors header"),
                       FileError);
  CHECK_THROWS_WITH_AS(model::SafetensorsFile(dir.path()), doctest::Contains("not a regular file"),
                       FileError);
  // A truncated copy of a good file: the offsets now run past the data.
  testing::write_safetensors(dir / "good.safetensors", {{"x", at::arange(100, at::kFloat)}});
  std::ifstream in(dir / "good.safetensors", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  testing::write_bytes(dir / "cut.safetensors", bytes.substr(0, bytes.size() - 10));
  CHECK_THROWS_WITH_AS(model::SafetensorsFile(dir / "cut.safetensors"),
                       doctest::Contains("may be truncated"), FileError);
}
