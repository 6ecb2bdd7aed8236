// `docsift eval --junit F.xml`: the evaluation as JUnit XML, so CI systems show it natively. One
// test case per scored field and one for the overall accuracy, in one test suite; a case fails
// when its accuracy is below --min-accuracy or it regressed against --baseline by more than
// --tolerance. The elements and attributes the JUnit schema requires (testsuite name/tests/
// failures/errors, testcase name/classname, failure message) are all written.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "docsift/eval/evaluate.h"

namespace docsift::eval {

struct Gate {
  std::optional<double> min_accuracy;
  const nlohmann::json* baseline = nullptr;  // a previous to_json report, or none
  double tolerance = 0.02;
};

std::string to_junit(const Evaluation& evaluation, const Gate& gate);

}  // namespace docsift::eval
