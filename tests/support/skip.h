// A case that cannot run here (no GPU, no CUDA stub driver, a LibTorch without CUDA, data that is
// not in the repository) says so and returns, and CTest reports it as skipped, not passed:
//
//   if (const std::string why = why_no_cuda_kernels(); !why.empty()) DOCSIFT_SKIP(why);  //
//   support/cuda_kernels.h
//
// prints the marker line "[docsift-skip] <why>" on stdout and returns from the test case;
// tests/CMakeLists.txt gives every discovered case SKIP_REGULAR_EXPRESSION "\[docsift-skip\]".
// (doctest's own skip() decorator is decided when a case is registered; these reasons are only
// known when it runs.) `reason` is anything that streams: DOCSIFT_SKIP("no " << library).
//
// CTest reports a case whose output holds the marker as skipped whatever its exit code, so the
// marker is printed only when no check of this case has failed yet; after a failure the case just
// returns and fails. The marker must appear nowhere else.
#pragma once

#include <iostream>

namespace docsift::testing {

// Whether a check of the running test case has failed (counted in tests/main.cpp).
bool current_case_failed();

}  // namespace docsift::testing

#define DOCSIFT_SKIP(reason)                                              \
  do {                                                                    \
    if (!::docsift::testing::current_case_failed()) {                     \
      std::cout << "[docsift-skip] " << reason << std::endl; /* NOLINT */ \
    }                                                                     \
    return;                                                               \
  } while (0)
