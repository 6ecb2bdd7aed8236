// The page image's own steps before Tesseract reads it (page_image.h): OpenCV and Leptonica on
// pixels, no text.
#include "docsift/ocr/page_image.h"

#include <leptonica/allheaders.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace docsift::ocr {
namespace {

// Leptonica's confidence in a skew it found, under which the page is left as it is: samples/
// turned by 2° and 3° gave 2.6 and 2.8, an upright one 4.3.
constexpr double kMinSkewConfidence = 2.0;

// `share` (CV_32F, 0..1 of the background) with its darkest kInkShare of pixels' level mapped to 0
// and white kept: (v - ink) / (1 - ink). Unchanged where the ink is already darker than kDarkInk.
cv::Mat stretch_ink(const cv::Mat& share) {
  constexpr float kInkShare = 0.01f;
  constexpr float kDarkInk = 0.5f;
  constexpr int kBins = 256;
  std::vector<int> count(kBins, 0);
  for (int y = 0; y < share.rows; ++y) {
    const float* row = share.ptr<float>(y);
    for (int x = 0; x < share.cols; ++x)
      ++count[std::clamp(static_cast<int>(row[x] * (kBins - 1)), 0, kBins - 1)];
  }
  const auto wanted = static_cast<long long>(kInkShare * static_cast<float>(share.total()));
  long long seen = 0;
  int bin = 0;
  while (bin < kBins - 1 && (seen += count[bin]) < wanted) ++bin;
  const float ink = static_cast<float>(bin) / (kBins - 1);
  if (ink <= kDarkInk) return share;
  cv::Mat out = (share - ink) / (1.0f - ink);
  cv::max(out, 0.0, out);
  return out;
}

// How many rules `lines` (a mask of thin runs, `run` long at least) holds down (`down`) or
// across: groups of neighbouring columns (rows) with a run's worth of its pixels, away from the
// page's edges (a scan's border, a photo's background, are not a table's).
int rule_count(const cv::Mat& lines, bool down, int run) {
  cv::Mat sums;
  cv::reduce(lines / 255, sums, down ? 0 : 1, cv::REDUCE_SUM, CV_32S);
  const int n = down ? lines.cols : lines.rows;
  const int edge = std::max(8, n / 50);
  int count = 0;
  bool in_rule = false;
  for (int i = edge; i < n - edge; ++i) {
    const bool full = (down ? sums.at<int>(0, i) : sums.at<int>(i, 0)) >= run;
    count += full && !in_rule ? 1 : 0;
    in_rule = full;
  }
  return count;
}

// One line of `ink` opened with a 1 × k line of ones, exactly as cv::morphologyEx(MORPH_OPEN) does
// it with the anchor at k / 2 (erosion reads past the line's ends as ink, dilation as none), from
// the line's maximal runs of ink: O(length) where the structuring element costs O(length × k),
// and k is a fifteenth of the page (a 7,000-pixel scan: 466).
void open_line(const uchar* ink, uchar* out, int n, int k) {
  const int a = k / 2;
  for (int s = 0; s < n;) {
    if (!ink[s]) {
      ++s;
      continue;
    }
    int e = s;
    while (e < n && ink[e]) ++e;
    // What erosion keeps of the run [s, e), then what dilation grows it back to.
    const int lo = s == 0 ? 0 : s + a, hi = e == n ? n - 1 : e - k + a;
    if (lo <= hi)
      std::fill(out + std::max(0, lo + a - k + 1), out + std::min(n - 1, hi + a) + 1, 255);
    s = e;
  }
}

}  // namespace

cv::Mat rotate(const cv::Mat& grey, double degrees) {
  const cv::Point2f center(static_cast<float>(grey.cols) / 2.0f,
                           static_cast<float>(grey.rows) / 2.0f);
  const cv::Mat m = cv::getRotationMatrix2D(center, degrees, 1.0);
  cv::Mat out;
  cv::warpAffine(grey, out, m, grey.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(255));
  return out;
}

// The page's skew in degrees (Leptonica's sign: positive is clockwise), when Leptonica is
// confident of it. Text is found by Otsu's threshold; Leptonica wants 1 bit per pixel, 1 for ink.
std::optional<double> find_skew(const cv::Mat& grey) {
  cv::Mat ink;
  cv::threshold(grey, ink, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
  PIX* pix = pixCreate(ink.cols, ink.rows, 1);
  if (pix == nullptr) return std::nullopt;
  l_uint32* data = pixGetData(pix);
  const int wpl = pixGetWpl(pix);
  for (int y = 0; y < ink.rows; ++y) {
    const auto* row = ink.ptr<std::uint8_t>(y);
    l_uint32* line = data + static_cast<std::ptrdiff_t>(y) * wpl;
    for (int x = 0; x < ink.cols; ++x) {
      if (row[x]) line[x >> 5] |= 0x80000000u >> (x & 31);
    }
  }
  l_float32 angle = 0, confidence = 0;
  const bool ok = pixFindSkew(pix, &angle, &confidence) == 0;
  pixDestroy(&pix);
  if (!ok || confidence < kMinSkewConfidence) return std::nullopt;
  return angle;
}

// Where a tall page can be cut in two without cutting a line of text: the middle of the widest
// blank row band in the page's middle half, or 0 when there is none. Rows count as blank when
// under 0.5% of their pixels are ink (Otsu's threshold).
int blank_row_near_middle(const cv::Mat& grey) {
  cv::Mat ink;
  cv::threshold(grey, ink, 0, 1, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
  cv::Mat rows;
  cv::reduce(ink, rows, 1, cv::REDUCE_SUM, CV_32S);
  const int limit = std::max(1, grey.cols / 200);
  const int middle = grey.rows / 2;
  // The widest blank band in the middle half; at least kBand rows, a gap between paragraphs
  // rather than the thin space between two lines.
  constexpr int kBand = 8;
  int best = 0, best_width = 0, run = 0;
  for (int y = middle - grey.rows / 4; y < middle + grey.rows / 4; ++y) {
    run = rows.at<int>(y) < limit ? run + 1 : 0;
    if (run > best_width) best_width = run, best = y - run / 2;
  }
  return best_width >= kBand ? best : 0;
}

// The page with its background divided out and its ink darkened: faint or unevenly lit thermal
// print (a photo's shadow, a fading receipt) reads as black on white. The background is the
// brightest level near each pixel (a max filter wider than a stroke of print, on a quarter-size
// copy for speed, then smoothed); a pixel's share of it is raised to kInkGamma, so that grey ink
// darkens and white stays white. bench/ocr/README.md has the settings measured.
cv::Mat even_out(const cv::Mat& grey) {
  constexpr int kShrink = 4;
  constexpr int kWindow = 11;       // 44 page pixels: wider than any stroke of a receipt's print
  constexpr double kSmooth = 10.0;  // Gaussian sigma, quarter-size pixels
  constexpr double kInkGamma = 1.5;
  cv::Mat small, background;
  cv::resize(grey, small,
             cv::Size(std::max(1, grey.cols / kShrink), std::max(1, grey.rows / kShrink)), 0, 0,
             cv::INTER_AREA);
  cv::dilate(small, background,
             cv::getStructuringElement(cv::MORPH_RECT, cv::Size(kWindow, kWindow)));
  cv::GaussianBlur(background, background, cv::Size(0, 0), kSmooth);
  cv::resize(background, background, grey.size(), 0, 0, cv::INTER_LINEAR);
  cv::Mat share;
  grey.convertTo(share, CV_32F);
  cv::Mat bright;
  background.convertTo(bright, CV_32F, 1.0, 1.0);
  cv::divide(share, bright, share);
  cv::min(share, 1.0, share);
  // Ink that is still light after that (a faded print whose darkest strokes are 76 % of white):
  // the page's darkest kInkShare of pixels, the ink, is stretched down to black.
  share = stretch_ink(share);
  cv::pow(share, kInkGamma, share);
  cv::Mat out;
  share.convertTo(out, CV_8U, 255.0);
  return out;
}

cv::Mat open_along(const cv::Mat& ink, bool down, int k) {
  // Rules down are read as the rows of the transposed mask: contiguous, so the scan stays linear.
  const cv::Mat src = down ? cv::Mat(ink.t()) : ink;
  cv::Mat out = cv::Mat::zeros(src.size(), CV_8U);
  for (int y = 0; y < src.rows; ++y) open_line(src.ptr<uchar>(y), out.ptr<uchar>(y), src.cols, k);
  return down ? cv::Mat(out.t()) : out;
}

// A ruled table's lines, white: thin runs of ink (under kThick pixels across: a letter's stem in
// a heading, a filled band, stays) at least a fifteenth of the page's height long (rules down) or
// an eighth of its width (rules across), on Otsu's threshold. Only on a page ruled as a table is,
// with two rules down and two across at least, away from its edges; a page without them (a
// receipt's dashed lines, a scan's border, an underline) is left as it is.
cv::Mat without_rules(const cv::Mat& grey) {
  constexpr int kThick = 5;
  constexpr int kMinRun = 40;
  constexpr int kMinRules = 2;
  cv::Mat ink;
  cv::threshold(grey, ink, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
  cv::Mat rules = cv::Mat::zeros(grey.size(), CV_8U);
  for (const bool down : {true, false}) {
    const int run = std::max(kMinRun, down ? grey.rows / 15 : grey.cols / 8);
    const cv::Size across = down ? cv::Size(kThick, 1) : cv::Size(1, kThick);
    cv::Mat lines = open_along(ink, down, run), thick;
    cv::morphologyEx(lines, thick, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_RECT, across));
    lines -= thick;
    if (rule_count(lines, down, run) < kMinRules) return grey;  // no table's grid
    // A rule's pixels and the one either side of it (its antialiased edge).
    cv::dilate(lines, lines, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    rules |= lines;
  }
  cv::Mat out = grey.clone();
  out.setTo(255, rules);
  return out;
}

}  // namespace docsift::ocr
