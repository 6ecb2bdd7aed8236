// The risk–coverage curves of the index, drawn as inline SVG (pages.h): no image file, no script,
// and they print as sharply as the text.
#include <algorithm>
#include <cmath>
#include <string>

#include "docsift/html_report/html.h"
#include "docsift/html_report/pages.h"

namespace docsift::html_report {
namespace {

// The plot area inside a 210 × 150 picture.
constexpr double kLeft = 34, kRight = 204, kTop = 8, kBottom = 124;

std::string num(double v) { return fixed(v, 1); }

}  // namespace

std::string risk_coverage_svg(const eval::ConfidenceGroup& group, std::optional<double> threshold) {
  // At most 101 rows (eval::listed_rows), so a large eval draws a small picture.
  const std::vector<eval::CoveragePoint> rows = eval::listed_rows(group.curve);
  double low = 1.0;
  for (const auto& r : rows) low = std::min(low, r.accuracy);
  // The accuracy axis starts at the tenth below the worst point, so curves near 1 are not flat.
  const double y0 = std::max(0.0, std::floor(low * 10.0 - 1e-9) / 10.0 - (low >= 1.0 ? 0.1 : 0.0));
  const auto x = [](double coverage) { return kLeft + coverage * (kRight - kLeft); };
  const auto y = [&](double accuracy) {
    return kBottom - (accuracy - y0) / (1.0 - y0) * (kBottom - kTop);
  };
  std::string points;
  for (const auto& r : rows) points += num(x(r.coverage)) + "," + num(y(r.accuracy)) + " ";
  std::string out =
      "<figure><svg viewBox=\"0 0 210 150\" role=\"img\" aria-label=\"risk-coverage curve of " +
      escape(group.name) + "\">\n";
  out += "<path class=\"axis\" d=\"M" + num(kLeft) + " " + num(kTop) + " V" + num(kBottom) + " H" +
         num(kRight) + "\"/>\n";
  out += "<text x=\"2\" y=\"" + num(kTop + 8) + "\">1.0</text><text x=\"2\" y=\"" + num(kBottom) +
         "\">" + fixed(y0, 1) + "</text>";
  out += "<text x=\"" + num(kLeft) + "\" y=\"138\">0 %</text><text x=\"" + num(kRight) +
         "\" y=\"138\" text-anchor=\"end\">100 %</text>";
  out += "<text x=\"" + num((kLeft + kRight) / 2 - 22) + "\" y=\"148\">share kept</text>\n";
  if (threshold) {
    // The share a threshold keeps: that of the last row at or above it.
    double kept = 0;
    for (const auto& r : group.curve) {
      if (r.threshold >= *threshold) kept = r.coverage;
    }
    out += "<path class=\"mark\" d=\"M" + num(x(kept)) + " " + num(kTop) + " V" + num(kBottom) +
           "\"><title>review threshold " + fixed(*threshold) + ": " + percent(kept) +
           " kept</title></path>\n";
  }
  if (!points.empty()) out += "<polyline class=\"curve\" points=\"" + points + "\"/>\n";
  out += "</svg><figcaption><b>" + escape(group.name) + "</b> · " +
         std::to_string(group.values.size()) + " values, " + std::to_string(group.correct) +
         " right · AURC " + fixed(group.aurc) + "</figcaption></figure>\n";
  return out;
}

}  // namespace docsift::html_report
