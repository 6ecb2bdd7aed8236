// The small pieces the logs and resume stand on: RFC 3339 timestamps, "did you mean", and a
// source file's stamp.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/edit_distance.h"
#include "docsift/io/source.h"
#include "docsift/json_fields.h"
#include "docsift/timestamp.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;

TEST_CASE("rfc3339_utc: UTC with milliseconds, floor-rounded on both sides of the epoch") {
  using std::chrono::milliseconds;
  const auto at = [](long long ms) {
    return docsift::WallClock::time_point(
        std::chrono::duration_cast<docsift::WallClock::duration>(milliseconds(ms)));
  };
  CHECK(docsift::rfc3339_utc(at(0)) == "1970-01-01T00:00:00.000Z");
  CHECK(docsift::rfc3339_utc(at(1795635065504)) == "2026-11-25T19:31:05.504Z");
  CHECK(docsift::rfc3339_utc(at(-1)) == "1969-12-31T23:59:59.999Z");
  CHECK(docsift::unix_seconds(at(1500)) == doctest::Approx(1.5));
}

TEST_CASE("closest_match: the nearest candidate within the limit, else nothing") {
  const std::vector<std::string> commands{"run", "merge", "inspect", "config", "eval"};
  CHECK(docsift::closest_match("rnu", commands) == "run");
  CHECK(docsift::closest_match("evl", commands) == "eval");
  CHECK(docsift::closest_match("frobnicate", commands).empty());
  CHECK(docsift::closest_match("--resum", {"--resume", "--retry-failed", "--recursive"}) ==
        "--resume");
}

TEST_CASE("stamp_file: size, time and content hash, and stamp_change says what moved") {
  docsift::testing::TempDir dir;
  const fs::path f = dir / "a.png";
  docsift::testing::write_text(f, "one");
  const auto a = docsift::io::stamp_file(f, /*with_hash=*/true);
  REQUIRE(a);
  CHECK(a->size == 3);
  REQUIRE(a->hash);
  CHECK(a->hash->starts_with("fnv1a64:"));
  CHECK(a->hash->size() == 8 + 16);
  CHECK_FALSE(docsift::io::stamp_file(f, /*with_hash=*/false)->hash);
  CHECK(docsift::io::stamp_change(*a, *a).empty());
  docsift::testing::write_text(f, "two");  // same size, other bytes
  const auto b = docsift::io::stamp_file(f, true);
  CHECK(b->hash != a->hash);
  docsift::testing::write_text(f, "three");
  const auto c = docsift::io::stamp_file(f, false);
  CHECK(docsift::io::stamp_change(*a, *c) == "size 3 → 5 bytes");
  docsift::io::SourceStamp moved = *a;
  moved.mtime_ns += 1000000000;
  CHECK(docsift::io::stamp_change(*a, moved).starts_with("modified "));
  CHECK_FALSE(docsift::io::stamp_file(dir / "absent.png", true));
  // FNV-1a 64 of "one", as the reference algorithm gives it.
  docsift::testing::write_text(f, "one");
  CHECK(docsift::io::content_hash(f) == "fnv1a64:3822b9513ee0e701");
}

TEST_CASE("json_value_as: integers only from JSON integers in range, never a float cast") {
  using docsift::json_value_as;
  const auto parse = [](const char* text) { return nlohmann::json::parse(text); };
  CHECK(json_value_as<std::int64_t>(parse("77777777777777777777777777777777777777770")) ==
        std::nullopt);  // a float
  CHECK(json_value_as<std::int64_t>(parse("1.5")) == std::nullopt);
  CHECK(json_value_as<std::int64_t>(parse("-3")) == -3);
  CHECK(json_value_as<std::uint64_t>(parse("-3")) == std::nullopt);
  CHECK(json_value_as<std::uint64_t>(parse("18446744073709551615")) == UINT64_MAX);
  CHECK(json_value_as<int>(parse("4294967296")) == std::nullopt);
  CHECK(json_value_as<int>(parse("-2147483648")) == INT32_MIN);
  CHECK(json_value_as<double>(parse("1.5")) == 1.5);
  CHECK(json_value_as<std::string>(parse("1")) == std::nullopt);
  CHECK(json_value_as<std::string>(parse("\"a\"")) == "a");
}
