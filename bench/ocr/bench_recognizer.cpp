// The second recognizer's speed: PP-OCRv4's network on docsift's LibTorch graph
// (lib/docsift/recognize) over line crops, in milliseconds per crop. bench/ocr/recognizer.sh runs
// it beside onnxruntime on the same crops and prints the ratio.
//
//   docsift_bench_recognizer [--model DIR] [--repeat N] [--threads T] [--bfloat16] CROP.png...
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "docsift/recognize/line_reader.h"

int main(int argc, char** argv) {
  std::string model = docsift::recognize::LineReader::installed_folder();
  int repeat = 20, threads = 0;
  auto precision = docsift::recognize::Precision::Float32;
  std::vector<cv::Mat> crops;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc)
      model = argv[++i];
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--bfloat16")
      precision = docsift::recognize::Precision::BFloat16;
    else {
      cv::Mat bgr = cv::imread(a, cv::IMREAD_COLOR), rgb;
      if (bgr.empty()) {
        std::fprintf(stderr, "bench_recognizer: cannot read %s\n", a.c_str());
        return 2;
      }
      cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
      crops.push_back(rgb);
    }
  }
  if (model.empty() || crops.empty() || repeat < 1) {
    std::fprintf(stderr,
                 "usage: docsift_bench_recognizer [--model DIR] [--repeat N] [--threads T] "
                 "[--bfloat16] CROP.png...\n");
    return 2;
  }
  if (threads > 0) at::set_num_threads(threads);
  const docsift::recognize::LineReader reader(model, true, precision);
  for (const cv::Mat& c : crops) reader.read(c);  // warm up: one compiled convolution per shape
  const auto start = std::chrono::steady_clock::now();
  std::size_t chars = 0;
  for (int r = 0; r < repeat; ++r) {
    for (const cv::Mat& c : crops) chars += reader.read(c).text.size();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "docsift recognizer: %zu crops x %d, %.2f ms per crop (%d threads, %s, %zu characters)\n",
      crops.size(), repeat,
      ms / static_cast<double>(crops.size() * static_cast<std::size_t>(repeat)),
      at::get_num_threads(),
      precision == docsift::recognize::Precision::BFloat16 ? "bfloat16" : "float32", chars);
  return 0;
}
