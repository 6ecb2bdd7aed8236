// The boxes of a page's reading on the page as given (engine.h: to_page, boxes_to_page).
#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "docsift/ocr/engine.h"

namespace docsift::ocr {

namespace {

// `box` turned 180° within a `width` × `height` page: each corner (x, y) → (width − x, height − y).
Box turned(const Box& box, int width, int height) {
  return {width - box.right, height - box.bottom, width - box.left, height - box.top};
}

// `change` applied to every box of `result`: its fields' evidence (box and parts) and its rows'
// (box, evidence, price word).
template <typename Change>
void each_box(Engine::Result& result, const Change& change) {
  const auto evidence = [&](Evidence& e) {
    change(e.box);
    std::for_each(e.parts.begin(), e.parts.end(), change);
  };
  for (auto& [name, e] : result.evidence) evidence(e);
  for (LineItem& item : result.items) {
    change(item.box);
    evidence(item.evidence);
    if (item.price_box) change(*item.price_box);
  }
}

}  // namespace

Box to_page(const Box& box, const Prepared& prepared, int width, int height) {
  const Box b = prepared.turned ? turned(box, width, height) : box;
  std::vector<cv::Point2d> corners = {{double(b.left), double(b.top)},
                                      {double(b.right), double(b.top)},
                                      {double(b.left), double(b.bottom)},
                                      {double(b.right), double(b.bottom)}};
  if (prepared.deskew_degrees != 0) {
    const cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(width / 2.0f, height / 2.0f),
                                              prepared.deskew_degrees, 1.0);
    cv::Mat back;
    cv::invertAffineTransform(m, back);
    cv::transform(corners, corners, back);
  }
  double left = corners[0].x, top = corners[0].y, right = left, bottom = top;
  for (const auto& c : corners) {
    left = std::min(left, c.x), right = std::max(right, c.x);
    top = std::min(top, c.y), bottom = std::max(bottom, c.y);
  }
  const auto px = [&](double v) {
    return static_cast<int>(std::lround(std::max(0.0, v) / prepared.scale));
  };
  return {px(left), px(top), px(right), px(bottom)};
}

void boxes_to_page(Engine::Result& result, const Prepared& prepared, int width, int height) {
  each_box(result, [&](Box& box) { box = to_page(box, prepared, width, height); });
}

void turn_boxes(Engine::Result& result, int width, int height) {
  each_box(result, [&](Box& box) { box = turned(box, width, height); });
}

}  // namespace docsift::ocr
