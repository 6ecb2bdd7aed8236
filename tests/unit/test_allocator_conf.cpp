#include <doctest/doctest.h>

#include "docsift/config/allocator_conf.h"
#include "docsift/error.h"

using docsift::ConfigError;
using docsift::config::parse_allocator_conf;

TEST_CASE("allocator settings parse into key/value pairs") {
  CHECK(parse_allocator_conf("").empty());
  CHECK(parse_allocator_conf("  ").empty());
  const auto opts = parse_allocator_conf(
      "max_split_size_mb:64, "
      "expandable_segments:False,garbage_collection_threshold:0.6,roundup_power2_divisions:[256:1,"
      "512:2,>:4]");
  REQUIRE(opts.size() == 4);
  CHECK(opts[0] == std::pair<std::string, std::string>{"max_split_size_mb", "64"});
  CHECK(opts[1].second == "False");
  CHECK(opts[3].second == "[256:1,512:2,>:4]");
}

TEST_CASE("allocator settings LibTorch would refuse are refused here first") {
  CHECK_THROWS_WITH_AS(parse_allocator_conf("max_split_size_mb"),
                       doctest::Contains("not of the form key:value"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("max_split_size_mb:20"), doctest::Contains("> 20"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("expandable_segments:true"),
                       doctest::Contains("True or False"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("garbage_collection_threshold:1.5"),
                       doctest::Contains("between 0 and 1"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("roundup_power2_divisions:3"),
                       doctest::Contains("power of two"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("backend:cudaMallocAsync"),
                       doctest::Contains("export PYTORCH_CUDA_ALLOC_CONF"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("max_split_size_mb:64,max_split_size_mb:128"),
                       doctest::Contains("given twice"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("foo:1"),
                       doctest::Contains("unknown allocator option 'foo'"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_allocator_conf("max_split_size_mb:64,"),
                       doctest::Contains("not of the form"), ConfigError);
}
