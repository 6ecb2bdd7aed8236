#include "docsift/eval/plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <vector>

#include "docsift/error.h"

namespace docsift::eval {

namespace {

const cv::Scalar kWhite(255, 255, 255), kBlack(0, 0, 0), kGrid(225, 225, 225), kGrey(140, 140, 140);
const cv::Scalar kBar(235, 190, 140), kBarEdge(180, 110, 40), kPoint(40, 40, 200),
    kCurve(180, 90, 20), kMarker(30, 140, 30);
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

// One chart in a grid of charts: data coordinates (x in [0, 1], y in [0, y_max]) to pixels.
struct Panel {
  cv::Mat& image;
  cv::Rect plot;  // the plotting area, inside the panel's margins
  double y_max = 1;

  cv::Point at(double x, double y) const {
    const double px = plot.x + std::clamp(x, 0.0, 1.0) * plot.width;
    const double py = plot.y + plot.height - std::clamp(y / y_max, 0.0, 1.0) * plot.height;
    return {static_cast<int>(std::lround(px)), static_cast<int>(std::lround(py))};
  }

  void text(const std::string& s, cv::Point where, double scale = 0.42,
            const cv::Scalar& colour = kBlack) const {
    cv::putText(image, s, where, kFont, scale, colour, 1, cv::LINE_AA);
  }

  // Grid, frame, tick labels every fifth of each axis, the axis names and the title.
  void axes(const std::string& title, const std::string& x_name, const std::string& y_name) const {
    for (int i = 0; i <= 5; ++i) {
      const double f = i / 5.0;
      cv::line(image, at(f, 0), at(f, y_max), kGrid, 1);
      cv::line(image, at(0, f * y_max), at(1, f * y_max), kGrid, 1);
      char label[16];
      std::snprintf(label, sizeof label, "%.1f", f);
      text(label, at(f, 0) + cv::Point(-10, 16), 0.35, kGrey);
      std::snprintf(label, sizeof label, y_max < 0.5 ? "%.2f" : "%.1f", f * y_max);
      text(label, at(0, f * y_max) + cv::Point(-34, 4), 0.35, kGrey);
    }
    cv::rectangle(image, plot, kBlack, 1);
    text(title, {plot.x, plot.y - 10}, 0.45);
    text(x_name, {plot.x + plot.width / 2 - 30, plot.y + plot.height + 32}, 0.4, kGrey);
    vertical_text(y_name, {plot.x - 48, plot.y + plot.height / 2});
  }

  // Text turned a quarter left, centred on `centre`'s y (OpenCV draws text horizontally only).
  void vertical_text(const std::string& s, cv::Point centre) const {
    int baseline = 0;
    const cv::Size size = cv::getTextSize(s, kFont, 0.4, 1, &baseline);
    cv::Mat label(size.height + baseline + 2, size.width + 2, CV_8UC3, kWhite), turned;
    cv::putText(label, s, {1, size.height + 1}, kFont, 0.4, kGrey, 1, cv::LINE_AA);
    cv::rotate(label, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
    const cv::Rect where(centre.x, centre.y - turned.rows / 2, turned.cols, turned.rows);
    if ((where & cv::Rect(0, 0, image.cols, image.rows)) == where) turned.copyTo(image(where));
  }
};

// Panels of `width` × `height` pixels, `columns` to a row, on a white canvas.
struct Grid {
  int columns, rows, width, height;
  cv::Mat image;
  Grid(std::size_t panels, int max_columns, int w, int h)
      : columns(std::max(1, std::min(max_columns, static_cast<int>(panels)))),
        rows(std::max(1, static_cast<int>((panels + columns - 1) / columns))),
        width(w),
        height(h),
        image(rows * h, columns * w, CV_8UC3, kWhite) {}
  cv::Rect plot(std::size_t index) const {
    const int c = static_cast<int>(index) % columns, r = static_cast<int>(index) / columns;
    // Margins: 62 px left for the axis name and tick labels, 34 at the top for the title, 46 below
    // for the axis.
    return {c * width + 62, r * height + 34, width - 80, height - 80};
  }
};

std::string png(const cv::Mat& image, const char* what) {
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".png", image, bytes))
    throw FileError(std::string("OpenCV could not encode the ") + what + " as PNG");
  return std::string(bytes.begin(), bytes.end());
}

std::string number(const char* format, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

void reliability_panel(const Panel& p, const ConfidenceGroup& g) {
  p.axes(g.name + "  n=" + std::to_string(g.values.size()) + "  ECE " +
             number("%.3f", g.calibration.ece),
         "confidence", "accuracy (bars: per bin; dots: at its mean)");
  for (const CalibrationBin& b : g.calibration.bins) {
    if (b.count == 0) continue;
    // The bin's accuracy as a bar over its width, its count at the foot of the bar.
    const cv::Rect bar(p.at(b.lower, b.accuracy) + cv::Point(2, 0),
                       p.at(b.upper, 0) - cv::Point(2, 0));
    cv::rectangle(p.image, bar, kBar, cv::FILLED);
    cv::rectangle(p.image, bar, kBarEdge, 1);
    p.text(std::to_string(b.count), p.at(b.lower, 0) + cv::Point(5, -5), 0.32, kBlack);
  }
  // Perfect calibration, over the bars: accuracy equal to confidence.
  cv::line(p.image, p.at(0, 0), p.at(1, 1), kBlack, 1, cv::LINE_AA);
  p.text("perfect", p.at(0.62, 0.55), 0.35, kBlack);
  cv::Point previous(-1, -1);
  for (const CalibrationBin& b : g.calibration.bins) {
    if (b.count == 0) continue;
    // Accuracy against the bin's mean confidence, joined bin to bin.
    const cv::Point point = p.at(b.mean_confidence, b.accuracy);
    if (previous.x >= 0) cv::line(p.image, previous, point, kPoint, 1, cv::LINE_AA);
    cv::circle(p.image, point, 4, kPoint, cv::FILLED, cv::LINE_AA);
    previous = point;
  }
}

void risk_coverage_panel(Panel p, const ConfidenceGroup& g) {
  double worst = 0;
  for (const CoveragePoint& c : g.curve) worst = std::max(worst, 1 - c.accuracy);
  // The risk axis to the next tenth above the worst risk (at least 0.1), so small risks show.
  p.y_max = std::max(0.1, std::ceil(worst * 10 - 1e-9) / 10);
  p.axes(g.name + "  n=" + std::to_string(g.values.size()) + "  AURC " + number("%.3f", g.aurc),
         "coverage", "risk (1 - accuracy)");
  // The step curve: each row's risk from the previous row's coverage to its own, joined by a rise
  // or fall at that coverage.
  double previous = 0, previous_risk = -1;
  for (const CoveragePoint& c : g.curve) {
    const double risk = 1 - c.accuracy;
    if (previous_risk >= 0)
      cv::line(p.image, p.at(previous, previous_risk), p.at(previous, risk), kCurve, 2,
               cv::LINE_AA);
    cv::line(p.image, p.at(previous, risk), p.at(c.coverage, risk), kCurve, 2, cv::LINE_AA);
    previous = c.coverage;
    previous_risk = risk;
  }
  // Where the threshold in force (fitted, else given) cuts the curve, and its value.
  std::optional<double> threshold;
  if (g.fit)
    threshold = g.fit->threshold;
  else if (g.at_threshold && !std::isnan(g.at_threshold->threshold))
    threshold = g.at_threshold->threshold;
  if (!threshold) return;
  const CoveragePoint* cut = nullptr;
  for (const CoveragePoint& c : g.curve) {
    if (c.threshold >= *threshold) cut = &c;
  }
  const double coverage = cut == nullptr ? 0 : cut->coverage,
               risk = cut == nullptr ? 0 : 1 - cut->accuracy;
  cv::line(p.image, p.at(coverage, 0), p.at(coverage, p.y_max), kMarker, 1, cv::LINE_AA);
  cv::circle(p.image, p.at(coverage, risk), 5, kMarker, cv::FILLED, cv::LINE_AA);
  const int right = coverage > 0.6 ? -118 : 6;  // keep the label inside the plot
  p.text("t=" + number("%.3f", *threshold) + " cov " + number("%.2f", coverage),
         p.at(coverage, p.y_max) + cv::Point(right, 14), 0.35, kMarker);
}

}  // namespace

std::string reliability_png(const ConfidenceEvaluation& c) {
  std::vector<const ConfidenceGroup*> groups{&c.all};
  for (const ConfidenceGroup& g : c.types) groups.push_back(&g);
  Grid grid(groups.size(), 3, 380, 360);
  for (std::size_t i = 0; i < groups.size(); ++i)
    reliability_panel({grid.image, grid.plot(i), 1.0}, *groups[i]);
  return png(grid.image, "reliability diagram");
}

std::string risk_coverage_png(const ConfidenceEvaluation& c) {
  std::vector<const ConfidenceGroup*> groups{&c.all};
  for (const ConfidenceGroup& g : c.fields) groups.push_back(&g);
  Grid grid(groups.size(), 5, 330, 280);
  for (std::size_t i = 0; i < groups.size(); ++i)
    risk_coverage_panel({grid.image, grid.plot(i), 1.0}, *groups[i]);
  return png(grid.image, "risk-coverage curves");
}

}  // namespace docsift::eval
