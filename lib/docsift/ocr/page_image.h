// The page image's own steps before Tesseract reads it (Reader::read runs them): its skew found
// and undone, a ruled table's lines whitened, a faint page evened out, a tall page's cut between
// its halves. Pixels in, pixels (or a number) out: 8-bit grey, no text read.
#pragma once

#include <opencv2/core/mat.hpp>
#include <optional>

namespace docsift::ocr {

// `grey` turned `degrees` about its centre (counter-clockwise, OpenCV's sign), the same size, white
// where the turn uncovers the page's corners.
cv::Mat rotate(const cv::Mat& grey, double degrees);

// The page's skew in degrees (Leptonica's sign: positive is clockwise), when Leptonica is
// confident of it (kMinSkewConfidence in page_image.cpp says how much); nullopt otherwise.
std::optional<double> find_skew(const cv::Mat& grey);

// Where a tall page can be cut in two without cutting a line of text: the middle of the widest
// blank band of 8 rows or more in the page's middle half, or 0 where there is none.
int blank_row_near_middle(const cv::Mat& grey);

// The page (8-bit grey) with its background divided out and its ink darkened, as the second
// reading sees it (Reader::read's `evened`): faint or unevenly lit print reads as black on white,
// and ink still light after the division (its darkest 1 % of pixels above half of white, a faded
// print) is stretched down to black.
cv::Mat even_out(const cv::Mat& grey);

// The page (8-bit grey) with a ruled table's lines whitened, as both readings see it: long thin
// runs of ink down and across (a fifteenth of the page's height, an eighth of its width), on a
// page that has both. Tesseract reads a rule beside a word as a letter ("|Rent", "Councitrates"),
// and drops short words beside one (a quantity's "5") or a boxed header row.
cv::Mat without_rules(const cv::Mat& grey);

// `ink` (CV_8U, 0 or 255) opened with a line of ones k long, down (k × 1) or across (1 × k):
// byte for byte cv::morphologyEx(MORPH_OPEN) with that rectangle and its default anchor and
// borders, in time linear in the pixels whatever k is. without_rules' long rules are found so.
cv::Mat open_along(const cv::Mat& ink, bool down, int k);

}  // namespace docsift::ocr
