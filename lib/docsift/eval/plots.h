// The confidence figures as PNG files beside the Markdown report (docs/eval.md, "Confidences"):
// a reliability diagram (accuracy against mean confidence per bin, with the diagonal), one panel
// for all values and one per field type; and the risk–coverage curves, one panel per field and
// one for all values, each marking the threshold in force.
#pragma once

#include <string>

#include "docsift/eval/confidence.h"

namespace docsift::eval {

// The PNG files' bytes (the caller writes them whole, as the reports). Throws FileError if OpenCV
// cannot encode the image.
std::string reliability_png(const ConfidenceEvaluation& c);
std::string risk_coverage_png(const ConfidenceEvaluation& c);

}  // namespace docsift::eval
