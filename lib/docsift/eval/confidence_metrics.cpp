// The measures of confidence.h over judged values: the risk–coverage table and its area, the
// calibration bins and their error, and the thresholds fitted to a target or checked.
#include "docsift/eval/confidence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace docsift::eval {

std::vector<CoveragePoint> risk_coverage(std::vector<Judged> values) {
  std::sort(values.begin(), values.end(),
            [](const Judged& a, const Judged& b) { return a.confidence > b.confidence; });
  std::vector<CoveragePoint> curve;
  std::size_t accepted = 0, correct = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ++accepted;
    correct += values[i].correct ? 1 : 0;
    // A row at the end of each group of equal confidences: a threshold accepts all of them or none.
    if (i + 1 < values.size() && values[i + 1].confidence == values[i].confidence) continue;
    CoveragePoint p;
    p.threshold = values[i].confidence;
    p.accepted = accepted;
    p.correct = correct;
    p.coverage = static_cast<double>(accepted) / static_cast<double>(values.size());
    p.accuracy = static_cast<double>(correct) / static_cast<double>(accepted);
    curve.push_back(p);
  }
  return curve;
}

double area_under_risk_coverage(const std::vector<CoveragePoint>& curve) {
  double area = 0, previous = 0;
  for (const CoveragePoint& p : curve) {
    area += (p.coverage - previous) * (1 - p.accuracy);
    previous = p.coverage;
  }
  return area;
}

Calibration calibrate(const std::vector<Judged>& values) {
  Calibration c;
  std::array<double, kCalibrationBins> confidence_sum{}, correct_sum{};
  for (int k = 0; k < kCalibrationBins; ++k) {
    c.bins[k].lower = static_cast<double>(k) / kCalibrationBins;
    c.bins[k].upper = static_cast<double>(k + 1) / kCalibrationBins;
  }
  for (const Judged& v : values) {
    const int k = std::clamp(static_cast<int>(std::floor(v.confidence * kCalibrationBins)), 0,
                             kCalibrationBins - 1);
    ++c.bins[k].count;
    confidence_sum[k] += v.confidence;
    correct_sum[k] += v.correct ? 1 : 0;
  }
  for (int k = 0; k < kCalibrationBins; ++k) {
    CalibrationBin& b = c.bins[k];
    if (b.count == 0) continue;
    b.mean_confidence = confidence_sum[k] / static_cast<double>(b.count);
    b.accuracy = correct_sum[k] / static_cast<double>(b.count);
    c.ece += static_cast<double>(b.count) / static_cast<double>(values.size()) *
             std::abs(b.accuracy - b.mean_confidence);
  }
  return c;
}

std::size_t errors_allowed(std::size_t accepted, double target) {
  // The small epsilon keeps 100 × (1 − 0.99), 0.99999999999999989 in doubles, at 1.
  return static_cast<std::size_t>(std::floor(static_cast<double>(accepted) * (1 - target) + 1e-9));
}

namespace {

// Whether `correct` of `accepted` reach `target`, with the same epsilon as errors_allowed.
bool reaches(std::size_t correct, std::size_t accepted, double target) {
  return accepted > 0 &&
         static_cast<double>(correct) + 1e-9 >= target * static_cast<double>(accepted);
}

}  // namespace

TargetFit fit_threshold(const std::vector<CoveragePoint>& curve, std::size_t values,
                        double target) {
  TargetFit fit;
  fit.target = target;
  // Rows run from the highest threshold to the lowest: the last that reaches is the lowest.
  const CoveragePoint* best = nullptr;
  for (const CoveragePoint& p : curve) {
    if (reaches(p.correct, p.accepted, target)) best = &p;
  }
  if (best != nullptr) {
    fit.reached = true;
    fit.threshold = best->threshold;
    fit.accepted = best->accepted;
    fit.correct = best->correct;
  } else {
    // Threshold 1 accepts only the values of confidence 1, if any (the first row, then).
    if (!curve.empty() && curve.front().threshold >= 1) {
      fit.accepted = curve.front().accepted;
      fit.correct = curve.front().correct;
    }
  }
  fit.coverage = values == 0 ? 0 : static_cast<double>(fit.accepted) / static_cast<double>(values);
  fit.accuracy =
      fit.accepted == 0 ? 0 : static_cast<double>(fit.correct) / static_cast<double>(fit.accepted);
  fit.errors_allowed = errors_allowed(fit.accepted, target);
  return fit;
}

ThresholdCheck check_threshold(const std::vector<Judged>& values, double threshold) {
  ThresholdCheck c;
  c.threshold = threshold;
  for (const Judged& v : values) {
    const bool under = v.confidence < threshold;
    c.under += under ? 1 : 0;
    c.wrong += v.correct ? 0 : 1;
    c.wrong_under += (under && !v.correct) ? 1 : 0;
  }
  return c;
}

}  // namespace docsift::eval
