// The second text recognizer (docs/ocr.md): PP-OCRv4's line recognizer, run on LibTorch
// (graph.h), reading one line of text from a crop of the page. Preprocessing and decoding are
// PaddleOCR's as the rapidocr-onnxruntime package runs them: the crop in BGR order resized to
// height 48 (bilinear) keeping its aspect, zeros on the right to at least 160 pixels and a
// multiple of 80 (as a batch of crops is padded to its widest; PaddleOCR pads to 320 at least,
// which the short crops of a page's figures do not need: line_reader.cpp),
// (x / 255 − 0.5) / 0.5, then greedy CTC: the likeliest class per step, repeats merged, blanks
// (class 0) dropped. The model is Chinese + Latin; what it reads is returned as it reads it.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "docsift/recognize/graph.h"

namespace docsift::recognize {

struct LineReading {
  std::string text;   // UTF-8, as read
  double mean = 0;    // mean probability of the characters read (PaddleOCR's score), 0..1
  double lowest = 0;  // the least sure character's probability, 0..1; 0 when nothing was read
  std::vector<float> probabilities;  // per character of `text` (one UTF-8 sequence each)
};

class LineReader {
 public:
  // FOLDER holds recognizer.json and recognizer.safetensors (scripts/convert_ppocr.py);
  // throws docsift::FileError naming the file and what is wrong with it. `fuse`, `precision`:
  // Graph's.
  explicit LineReader(const std::filesystem::path& folder, bool fuse = true,
                      Precision precision = Precision::Float32);

  // `rgb`: 8-bit, 3 channels, the line's crop (at least 2 pixels each way; wider than
  // kMaxAspect × its height is squeezed to that). Throws docsift::Error if the network fails.
  LineReading read(const cv::Mat& rgb) const;
  // The network's output for `rgb`, before decoding: [steps, classes] probabilities, classes being
  // the blank, the characters, and a space (the parity test compares it with onnxruntime's).
  at::Tensor probabilities(const cv::Mat& rgb) const;

  // The folder where scripts/setup.sh leaves the converted model: .deps/ppocr beside the build
  // folder of this docsift, or share/docsift/ppocr where `cmake --install` puts it; "" if neither.
  static std::string installed_folder();
  const Graph& graph() const { return graph_; }

  static constexpr int kHeight = 48;
  static constexpr int kMinWidth = 160;
  static constexpr double kMaxAspect = 50;
  static constexpr int kWidthStep = 80;

 private:
  Graph graph_;
};

}  // namespace docsift::recognize
