// `docsift eval --junit F.xml`: the evaluation as JUnit XML, so CI systems show it natively. One
// test case per scored field and one for the overall accuracy, in one test suite; each case fails
// exactly when eval/gate.h's judge says it does, the rule that also decides the exit code. The
// counts, precision, recall and F1 go in as properties. The elements and attributes the JUnit
// schema requires (testsuite name/tests/failures/errors, testcase name/classname, failure
// message) are all written.
#pragma once

#include <string>
#include <vector>

#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"

namespace docsift::eval {

std::string to_junit(const Evaluation& evaluation, const std::vector<GateCase>& cases);

}  // namespace docsift::eval
