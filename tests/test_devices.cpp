// Runs everywhere: without a GPU the status must say why, with one it must list real devices.
#include <doctest/doctest.h>

#include "docsift/memory/devices.h"

TEST_CASE("cuda_status is consistent with or without a GPU") {
  const auto status = docsift::memory::cuda_status();
  if (!status.compiled) {
    CHECK_FALSE(status.available);
    CHECK_FALSE(status.reason.empty());
    return;
  }
  CHECK_FALSE(status.runtime_version.empty());
  if (!status.available) {
    MESSAGE("no usable GPU: " << status.reason);
    CHECK_FALSE(status.reason.empty());
    CHECK(status.devices.empty());
    return;
  }
  REQUIRE_FALSE(status.devices.empty());
  for (const auto& d : status.devices) {
    CHECK_FALSE(d.name.empty());
    CHECK(d.total_bytes > (1ULL << 30));
    CHECK(d.free_bytes <= d.total_bytes);
    CHECK(d.major >= 5);
  }
}
