#include "docsift/html_report/page_image.h"

#include <algorithm>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <system_error>

#include "docsift/error.h"
#include "docsift/io/output_file.h"
#include "docsift/io/page_name.h"
#include "docsift/io/pages.h"
#include "docsift/io/pinned_file.h"
#include "docsift/io/same_file.h"
#include "docsift/journal/totals.h"

namespace docsift::html_report {
namespace fs = std::filesystem;

namespace {

// `path` resolved, when it is a regular file lying in `folder` (resolved too); nullopt otherwise.
std::optional<fs::path> real_in(const fs::path& path, const fs::path& folder) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec || !fs::is_regular_file(real, ec) || !io::is_within(real, folder)) return std::nullopt;
  return real;
}

}  // namespace

std::optional<FoundPage> find_page_file(const journal::Record& record, const PageSearch& search,
                                        std::string* why) {
  // The record's name is the page's identity (docs/run.md, "Inputs"): under a folder given, its
  // path relative to that folder; a file named directly, its path as given.
  const std::string relative = journal::record_relative(record);
  const fs::path name(std::string(io::file_of(relative)));
  const auto none = [&](const std::string& reason) -> std::optional<FoundPage> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  if (name.empty()) return none("the record names no file");
  std::error_code ec;
  // Under the folders: where the name leads must stay in the folder.
  std::vector<fs::path> folders(search.folders.begin(), search.folders.end());
  for (const std::string& input : search.inputs) {
    if (!input.empty() && input != "-" && fs::is_directory(input, ec)) folders.emplace_back(input);
  }
  bool outside = false;
  for (const fs::path& folder : folders) {
    const fs::path candidate = name.is_absolute() ? name : folder / name;
    if (!fs::exists(candidate, ec)) continue;
    if (const auto real = real_in(candidate, folder)) return FoundPage{candidate, *real};
    outside = outside || !name.is_absolute();
  }
  // A file the run was given by name.
  for (const std::string& input : search.inputs) {
    if (input.empty() || input == "-" || fs::is_directory(input, ec)) continue;
    if (fs::path(input).lexically_normal().generic_string() !=
        name.lexically_normal().generic_string())
      continue;
    const fs::path real = fs::canonical(input, ec);
    if (!ec && fs::is_regular_file(real, ec)) return FoundPage{input, real};
  }
  if (outside)
    return none(
        "its name leads out of the folder the run read (a link put there since?); not read");
  if (name.is_absolute())
    return none("not one of the run's inputs, nor in a folder of them; not read");
  // Without a summary (a run killed before its end): the name under the working folder.
  if (const auto real = real_in(name, fs::current_path(ec))) return FoundPage{name, *real};
  return none("");
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

PageImage render_page_image(const FoundPage& found, int page, const ImageOptions& options,
                            const std::optional<io::SourceStamp>& source) {
  // One opening for the check and the decode (io/pinned_file.h): the file found, and the page the
  // run read (same size and content), not whatever is at its name now.
  const io::PinnedFile pin(found.path, found.real);
  const fs::path& file = found.path;
  if (!source)
    throw FileError(file.string() +
                    ": its record has no source stamp to check the file against; not shown");
  const std::optional<io::SourceStamp> now =
      io::stamp_pinned(pin, /*with_hash=*/source->hash.has_value());
  if (!now) throw FileError(file.string() + ": cannot be read (" + io::errno_text() + ")");
  if (now->size != source->size || (source->hash && now->hash != source->hash)) {
    throw FileError(file.string() + ": is not the page the run read (" +
                    (now->size != source->size ? "size " + std::to_string(source->size) + " → " +
                                                     std::to_string(now->size) + " bytes"
                                               : std::string("its content changed")) +
                    "); not shown");
  }
  io::PageOptions pages;
  pages.pdf_dpi = options.full ? std::max(options.pdf_dpi, 150) : options.pdf_dpi;
  // A damaged JPEG the run read with input.accept_truncated is shown as far as it decodes: the
  // person checking it should see what the reader saw.
  pages.limits.accept_truncated = true;
  std::string said;
  // One decode at a time (io/decode_lock.h); the other threads meanwhile shrink, encode and write
  // the pages already decoded.
  const cv::Mat view = [&] {
    try {
      return io::read_page_pixels(pin.open_path(), page, pages, &said);  // RGB, as io decodes it
    } catch (const FileError& e) {
      throw FileError(pin.named(e.what()));
    }
  }();
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
