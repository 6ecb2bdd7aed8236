#include "docsift/html_report/page_image.h"

#include <algorithm>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <system_error>

#include "docsift/batch/outputs.h"
#include "docsift/error.h"
#include "docsift/io/page_name.h"
#include "docsift/io/pages.h"

namespace docsift::html_report {
namespace fs = std::filesystem;

std::optional<fs::path> find_page_file(const batch::Record& record, const PageSearch& search) {
  // The record's name is the page's identity (docs/run.md, "Inputs"): under a folder given, its
  // path relative to that folder; a file named directly, its path as given.
  const std::string relative = batch::record_relative(record);
  const fs::path name(std::string(io::file_of(relative)));
  if (name.empty()) return std::nullopt;
  std::vector<fs::path> candidates;
  if (name.is_absolute()) {
    candidates.push_back(name);
  } else {
    for (const fs::path& folder : search.folders) candidates.push_back(folder / name);
    std::error_code ec;
    for (const std::string& input : search.inputs) {
      if (input.empty() || input == "-") continue;
      const fs::path path(input);
      if (fs::is_directory(path, ec)) {
        candidates.push_back(path / name);
      } else if (path.lexically_normal().generic_string() == name.generic_string()) {
        candidates.push_back(path);
      }
    }
    candidates.push_back(name);
  }
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

namespace {

// `bgr` as a JPEG at `quality`.
std::string encode_jpeg(const cv::Mat& bgr, int quality, const fs::path& file) {
  std::vector<unsigned char> bytes;
  const std::vector<int> params{cv::IMWRITE_JPEG_QUALITY, quality, cv::IMWRITE_JPEG_OPTIMIZE, 1};
  if (!cv::imencode(".jpg", bgr, bytes, params)) {
    throw FileError(file.string() + ": OpenCV could not encode the page as a JPEG");
  }
  return {bytes.begin(), bytes.end()};
}

// `image` with its longer side at most `max_side`. A large reduction (a 300 dpi A4 scan to a
// thumbnail) first averages whole blocks of k × k pixels, OpenCV's fast path for an integer
// factor, then the remaining fraction: the same area average as one step, at a third of the time.
cv::Mat shrunk(const cv::Mat& image, int max_side) {
  const int longer = std::max(image.cols, image.rows);
  if (longer <= max_side) return image;
  cv::Mat source = image;
  if (const int k = longer / max_side; k >= 2) {
    cv::resize(image, source, cv::Size(image.cols / k, image.rows / k), 0, 0, cv::INTER_AREA);
  }
  const double scale = static_cast<double>(max_side) / std::max(source.cols, source.rows);
  if (scale >= 1.0) return source;
  cv::Mat out;
  cv::resize(source, out,
             cv::Size(std::max(1, static_cast<int>(source.cols * scale + 0.5)),
                      std::max(1, static_cast<int>(source.rows * scale + 0.5))),
             0, 0, cv::INTER_AREA);
  return out;
}

}  // namespace

PageImage render_page_image(const fs::path& file, int page, const ImageOptions& options) {
  io::PageOptions pages;
  pages.pdf_dpi = options.full ? std::max(options.pdf_dpi, 150) : options.pdf_dpi;
  // A damaged JPEG the run read with input.accept_truncated is shown as far as it decodes: the
  // person checking it should see what the reader saw.
  pages.limits.accept_truncated = true;
  std::string said;
  // One decode at a time: io/ catches what an image decoder prints by pointing the process's stderr
  // at a file for the length of the call (io/image_file.cpp), which two threads at once would leave
  // pointing there; Poppler's documents share global state too. The other threads meanwhile shrink,
  // encode and write the pages already decoded.
  static std::mutex decode_mutex;
  std::unique_lock<std::mutex> decoding(decode_mutex);
  const cv::Mat view = io::read_page_pixels(file, page, pages, &said);  // RGB, as io decodes it
  decoding.unlock();
  PageImage out;
  cv::Mat bgr;
  if (options.full) {
    cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
    out.full_jpeg = encode_jpeg(bgr, 85, file);
  }
  // Shrunk first, then turned to OpenCV's channel order: the colour pass runs over the thumbnail's
  // pixels, not the scan's.
  cv::cvtColor(shrunk(view, options.max_side), bgr, cv::COLOR_RGB2BGR);
  // The size budget: the quality steps down first (text stays legible to about 50), then the
  // page shrinks, so a noisy photographed receipt cannot blow the report's size.
  for (int shrink = 0; shrink < 4; ++shrink) {
    if (shrink > 0) bgr = shrunk(bgr, std::max(bgr.cols, bgr.rows) * 3 / 4);
    out.width = bgr.cols;
    out.height = bgr.rows;
    for (const int quality : {80, 65, 50}) {
      out.jpeg = encode_jpeg(bgr, quality, file);
      if (out.jpeg.size() <= options.max_bytes) return out;
    }
  }
  return out;  // the smallest tried
}

}  // namespace docsift::html_report
