// The test runner: doctest's own, plus one check. CTest runs each test case by name
// (--test-case=NAME); a name CMake cannot carry (a ';' splits it into two "tests") would match
// nothing, and doctest passes an empty run, so a test would silently never run. Here a filtered
// run that started no test case fails instead. It also counts the running case's failed checks,
// for support/skip.h (a case that has failed already is not reported as skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#if DOCSIFT_WITH_TORCH
#include "docsift/device/cuda_backend.h"
#endif
#include "support/skip.h"

namespace {

int g_cases_started = 0;
int g_failed_in_case = 0;  // failed checks of the running test case

struct CountCases : doctest::IReporter {
  explicit CountCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {
    ++g_cases_started;
    g_failed_in_case = 0;
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& data) override {
    // doctest reports only failed checks without --success; a failed WARN fails nothing.
    if (data.m_failed && !(data.m_at & doctest::assertType::is_warn)) ++g_failed_in_case;
  }
  void log_message(const doctest::MessageData& data) override {
    if (!(data.m_severity & doctest::assertType::is_warn)) ++g_failed_in_case;  // FAIL_CHECK, FAIL
  }
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("count_cases", 1, CountCases);

bool docsift::testing::current_case_failed() { return g_failed_in_case > 0; }

int main(int argc, char** argv) {
  // Before any test asks LibTorch about CUDA (at::manual_seed does): LibTorch keeps its first
  // answer (device/cuda_backend.h). Without CUDA this only records why.
#if DOCSIFT_WITH_TORCH
  (void)docsift::device::load_cuda_backend();
#endif
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;  // --help, --list-test-cases
  for (int i = 1; i < argc; ++i) {
    const bool filtered =
        std::strncmp(argv[i], "--test-case=", 12) == 0 || std::strncmp(argv[i], "-tc=", 4) == 0;
    if (filtered && g_cases_started == 0) {
      std::fprintf(stderr,
                   "docsift_tests: no test case matches %s; a test name must not contain ';'\n",
                   argv[i]);
      return 1;
    }
  }
  return result;
}
