#include "docsift/recognize/line_reader.h"

#include <ATen/ops/from_blob.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <system_error>

#include "docsift/data_folder.h"
#include "docsift/error.h"

namespace docsift::recognize {

LineReader::LineReader(const std::filesystem::path& folder, bool fuse, Precision precision)
    : graph_(folder, fuse, precision) {}

std::string LineReader::installed_folder() {
  return data_folder("ppocr", [](const std::filesystem::path& folder) {
    std::error_code ec;
    return std::filesystem::is_regular_file(folder / "recognizer.json", ec);
  });
}

at::Tensor LineReader::probabilities(const cv::Mat& rgb) const {
  if (rgb.type() != CV_8UC3 || rgb.rows < 2 || rgb.cols < 2) {
    throw Error("recognizer: a line crop must be 8-bit, 3 channels, at least 2x2 pixels");
  }
  // The network's input: [1, 3, 48, width], BGR as PaddleOCR's training read its images (cv2).
  const double aspect = std::min(kMaxAspect, static_cast<double>(rgb.cols) / rgb.rows);
  const int resized = std::max(1, static_cast<int>(std::ceil(kHeight * aspect)));
  // Padded on the right to a multiple of kWidthStep, as PaddleOCR pads a batch to its widest crop:
  // a few input shapes, not one per crop, so LibTorch's oneDNN keeps a few compiled convolutions
  // (one per shape) and memory stays flat from page to page (docs/ocr.md). PaddleOCR pads a crop
  // to 320 at least; half of a page's crops (a total, a date, a price) are narrower, and at 160
  // the 200 receipts read the same totals, dates and sellers in 5 % less time
  // (bench/ocr/README.md, "the recognizer pads a crop to 160").
  const int width = ((std::max(kMinWidth, resized) + kWidthStep - 1) / kWidthStep) * kWidthStep;
  cv::Mat scaled, floats;
  cv::resize(rgb, scaled, cv::Size(resized, kHeight), 0, 0, cv::INTER_LINEAR);
  scaled.convertTo(floats, CV_32FC3, 2.0 / 255.0, -1.0);  // (x / 255 − 0.5) / 0.5
  c10::InferenceMode guard;
  const at::Tensor hwc = at::from_blob(floats.data, {kHeight, resized, 3}, at::kFloat);
  at::Tensor input = at::zeros({1, 3, kHeight, width}, at::kFloat);
  input.narrow(3, 0, resized)
      .copy_(hwc.flip({2}).permute({2, 0, 1}).unsqueeze(0));  // RGB → BGR, HWC → CHW
  // Channels last: oneDNN's convolutions then read each layer's output as it is, with no reorder
  // before and after every one of the 38 (22.2 -> 18.3 ms a crop, bench/ocr/bench_recognizer; the
  // classes and probabilities still onnxruntime's, tests/parity/test_recognizer.cpp).
  const at::Tensor probs =
      graph_.run(input.contiguous(at::MemoryFormat::ChannelsLast));  // [1, steps, classes]
  const auto classes =
      static_cast<std::int64_t>(graph_.characters().size() + 2);  // blank + characters + space
  if (probs.dim() != 3 || probs.size(0) != 1 || probs.size(2) != classes) {
    throw Error("recognizer: the network gave " + std::to_string(probs.dim()) +
                "-D output, not [1, steps, " + std::to_string(classes) +
                "]: the model and its characters do not match");
  }
  return probs[0];
}

LineReading LineReader::read(const cv::Mat& rgb) const {
  c10::InferenceMode guard;
  const auto [best, index] = probabilities(rgb).max(1);
  const at::Tensor p = best.contiguous(), k = index.contiguous();
  const float* prob = p.const_data_ptr<float>();
  const std::int64_t* cls = k.const_data_ptr<std::int64_t>();
  LineReading out;
  double sum = 0, lowest = 1;
  std::size_t kept = 0;
  for (std::int64_t t = 0; t < k.numel(); ++t) {
    if (cls[t] == 0 || (t > 0 && cls[t] == cls[t - 1])) continue;
    const auto c = static_cast<std::size_t>(cls[t]);
    out.text += c <= graph_.characters().size() ? graph_.characters()[c - 1] : " ";
    out.probabilities.push_back(prob[t]);
    sum += prob[t], lowest = std::min<double>(lowest, prob[t]), ++kept;
  }
  if (kept > 0) out.mean = sum / static_cast<double>(kept), out.lowest = lowest;
  return out;
}

}  // namespace docsift::recognize
