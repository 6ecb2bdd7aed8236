// A page's crops for the second recognizer, each read once (page_crops.h).
#include "docsift/ocr/page_crops.h"

#include <algorithm>
#include <opencv2/core.hpp>

namespace docsift::ocr {

std::optional<LineText> PageCrops::read(const Box& at) {
  if (reader_ == nullptr) return std::nullopt;
  const int pad = std::max(2, at.height() / 6);
  const cv::Rect box =
      cv::Rect(at.left - pad, at.top - pad, at.right - at.left + 2 * pad, at.height() + 2 * pad) &
      cv::Rect(0, 0, rgb_.cols, rgb_.rows);
  if (box.width < 2 || box.height < 2) return std::nullopt;
  const std::array<int, 5> key = {box.x, box.y, box.width, box.height, turned_ ? 1 : 0};
  if (const auto known = read_.find(key); known != read_.end()) return known->second;
  // Turned into a crop of its own: rotated in place, the view would turn the page's own pixels,
  // and the next box cut there (a value's line inside its box, a word read again) read them
  // upside down.
  cv::Mat crop;
  if (turned_)
    cv::rotate(rgb_(box), crop, cv::ROTATE_180);
  else
    crop = rgb_(box);
  return read_[key] = reader_->read(crop);
}

std::optional<LineText> PageCrops::read_lines(const std::vector<Box>& lines) {
  LineText out;
  double sum = 0;
  std::size_t characters = 0;
  for (const Box& at : lines) {
    const std::optional<LineText> line = read(at);
    if (!line || line->text.empty()) continue;
    if (!out.text.empty()) out.text += ' ', out.probabilities.push_back(1.0f);
    out.lowest = out.text.empty() ? line->lowest : std::min(out.lowest, line->lowest);
    out.text += line->text;
    out.probabilities.insert(out.probabilities.end(), line->probabilities.begin(),
                             line->probabilities.end());
    sum += line->mean * static_cast<double>(line->probabilities.size());
    characters += line->probabilities.size();
  }
  if (characters == 0) return std::nullopt;
  out.mean = sum / static_cast<double>(characters);
  return out;
}

}  // namespace docsift::ocr
