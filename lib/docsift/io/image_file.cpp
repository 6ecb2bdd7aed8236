#include "docsift/io/image_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/io/decode_lock.h"
#include "docsift/io/exif.h"
#include "docsift/io/image_header.h"
#include "docsift/io/output_file.h"

namespace docsift::io {
namespace fs = std::filesystem;
namespace {

// The image decoders under OpenCV (libjpeg's "Corrupt JPEG data: bad Huffman code", libpng's
// "PNG input buffer is incomplete") print to stderr, where a log shows them without a file name
// (and interleaved with docsift's own lines). While a file decodes, stderr goes to an anonymous
// in-memory file; what the decoder said is then part of docsift's own message when the image
// fails, and nothing leaks when it decodes. The redirection is process-wide, so it is held under
// decode_lock (decode_lock.h) for as long as one decode call.
class DecoderMessages {
 public:
  DecoderMessages() : decoding_(decode_lock()) {
    std::fflush(stderr);
    captured_ = UniqueFd(memfd_create("docsift-decoder-messages", MFD_CLOEXEC));
    if (captured_.valid()) saved_ = UniqueFd(dup(STDERR_FILENO));
    if (saved_.valid()) dup2(captured_.get(), STDERR_FILENO);
  }
  ~DecoderMessages() { finish(); }
  DecoderMessages(const DecoderMessages&) = delete;
  DecoderMessages& operator=(const DecoderMessages&) = delete;

  // Restores stderr; the decoder's first line, if it said anything.
  std::string finish() {
    std::string said;
    if (saved_.valid()) {
      std::fflush(stderr);
      dup2(saved_.get(), STDERR_FILENO);
      saved_.reset();
      char buf[512];
      const ssize_t n = pread(captured_.get(), buf, sizeof buf, 0);
      if (n > 0) said.assign(buf, static_cast<std::size_t>(n));
      said = said.substr(0, said.find('\n'));
    }
    captured_.reset();
    if (decoding_.owns_lock()) decoding_.unlock();
    return said;
  }

 private:
  std::unique_lock<std::mutex> decoding_;  // until stderr is back
  UniqueFd captured_, saved_;  // the in-memory file; the real stderr while it is replaced
};

std::vector<unsigned char> read_prefix(const fs::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> data(bytes);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

cv::Mat to_rgb8(const cv::Mat& in, const fs::path& path) {
  cv::Mat img = in;
  if (img.depth() == CV_16U) {
    img.convertTo(img, CV_8U, 1.0 / 257.0);
  } else if (img.depth() == CV_32F || img.depth() == CV_64F) {
    img.convertTo(img, CV_8U, 255.0);
  } else if (img.depth() != CV_8U) {
    throw FileError(path.string() + ": unsupported pixel depth (OpenCV depth " +
                    std::to_string(img.depth()) + ")");
  }
  cv::Mat rgb;
  switch (img.channels()) {
    case 1:
      cv::cvtColor(img, rgb, cv::COLOR_GRAY2RGB);
      break;
    case 3:
      cv::cvtColor(img, rgb, cv::COLOR_BGR2RGB);
      break;
    case 4: {
      // Composite onto white: out = rgb·a + 255·(1 − a).
      std::vector<cv::Mat> ch;
      cv::split(img, ch);
      cv::Mat alpha;
      ch[3].convertTo(alpha, CV_32F, 1.0 / 255.0);
      cv::Mat bgr;
      cv::merge(std::vector<cv::Mat>{ch[0], ch[1], ch[2]}, bgr);
      bgr.convertTo(bgr, CV_32FC3);
      cv::Mat a3;
      cv::merge(std::vector<cv::Mat>{alpha, alpha, alpha}, a3);
      cv::Mat out = bgr.mul(a3) + (cv::Scalar::all(1.0) - a3) * 255.0;
      out.convertTo(out, CV_8UC3);
      cv::cvtColor(out, rgb, cv::COLOR_BGR2RGB);
      break;
    }
    default:
      throw FileError(path.string() + ": unsupported channel count " +
                      std::to_string(img.channels()));
  }
  return rgb;
}

// OpenCV applies the orientation of JPEG (through IMREAD_COLOR) and TIFF (its decoder reads the
// Orientation tag) itself; PNG and WebP decoded unchanged keep their stored orientation, so it is
// applied here from their EXIF, as a viewer shows the page (tested against Pillow's exif_transpose
// for all three).
cv::Mat oriented(const cv::Mat& img, int orientation) {
  cv::Mat out;
  switch (orientation) {
    case 2:
      cv::flip(img, out, 1);
      return out;
    case 3:
      cv::rotate(img, out, cv::ROTATE_180);
      return out;
    case 4:
      cv::flip(img, out, 0);
      return out;
    case 5:
      cv::transpose(img, out);
      return out;
    case 6:
      cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE);
      return out;
    case 7:
      cv::transpose(img, out);
      cv::rotate(out, out, cv::ROTATE_180);
      return out;
    case 8:
      cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE);
      return out;
    default:
      return img;
  }
}

bool is_tiff(const fs::path& path) { return is_tiff_header(read_prefix(path, 4)); }

// The declared sizes of the TIFF's pages up to `page` (0-based), from their directories, which may
// lie anywhere in the file: the file is mapped, not read, and only the directories' bytes are
// touched. Fewer than page + 1 when the directory chain does not reach that page; width and height
// 0 for a page that does not say.
std::vector<TiffPage> tiff_pages_to(const fs::path& path, int page) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || st.st_size <= 0) return {};
  const auto bytes = static_cast<std::size_t>(st.st_size);
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (map == MAP_FAILED) return {};
  auto sizes = tiff_pages({static_cast<const unsigned char*>(map), bytes},
                          static_cast<std::size_t>(page) + 1);
  ::munmap(map, bytes);
  return sizes;
}

// TIFF page `page` (0-based) as its directory declares it, refused (FileError) before any decoder
// runs when the directory is not in the file, says no size, or declares a page, a strip or a tile
// over the pixel limit.
void check_tiff_page(const fs::path& path, int page, const ImageLimits& limits) {
  // A page whose directory says no size (or is not there) never reaches libtiff: it would size
  // its buffers from the strips instead, unchecked.
  const std::string label =
      page > 0 ? path.string() + "#page=" + std::to_string(page + 1) : path.string();
  const auto sizes = tiff_pages_to(path, page);
  if (sizes.size() <= static_cast<std::size_t>(page)) {
    throw FileError(
        label +
        ": not a decodable image (truncated, damaged, or not really a TIFF file: the directory "
        "of " +
        (page > 0 ? "page " + std::to_string(page + 1) : std::string("its first page")) +
        " is not in the file)");
  }
  const TiffPage& p = sizes[static_cast<std::size_t>(page)];
  if (p.width == 0)
    throw FileError(label +
                    ": the TIFF page's directory declares no width and height; not decoded");
  check_declared_size(label, p.width, p.height, limits.max_pixels);
  // A strip or tile larger than the page (a 200-byte file declaring strips of 5 million rows
  // made OpenCV allocate gigabytes: the image_decode fuzz target; bench/fuzz/README.md).
  check_declared_buffers(label, p, limits.max_pixels);
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> read_image_size(const fs::path& path) {
  return image_size_from_header(read_prefix(path, kImageHeaderBytes), path.string());
}

void check_file_size(const fs::path& path, const ImageLimits& limits) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw FileError(path.string() + ": no such image file");
  // Said as what it is, before a decoder reports an unreadable file as a damaged one.
  if (const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)); !fd.valid()) {
    const int error = errno;
    throw FileError(
        path.string() + ": cannot open: " + std::strerror(error) +
        (error == EACCES ? " (check the file's permissions for the user docsift runs as)" : ""));
  }
  const std::uint64_t bytes = fs::file_size(path, ec);
  if (ec || bytes == 0) throw FileError(path.string() + ": empty file (0 bytes)");
  if (bytes > limits.max_file_bytes) {
    throw FileError(path.string() + ": file of " + std::to_string(bytes >> 20) +
                    " MiB exceeds the " + std::to_string(limits.max_file_bytes >> 20) +
                    " MiB limit");
  }
}

int image_page_count(const fs::path& path) {
  if (!is_tiff(path)) return 1;
  try {
    return static_cast<int>(
        std::max<std::size_t>(1, cv::imcount(path.string(), cv::IMREAD_UNCHANGED)));
  } catch (const cv::Exception& e) {
    throw FileError(path.string() + ": cannot read the TIFF's pages: " + e.what());
  }
}

bool decoder_lost_data(std::string_view message) {
  // libjpeg's "Corrupt JPEG data: N extraneous bytes before marker" skips padding between
  // segments; the pixels are all there.
  if (message.find("extraneous bytes") != std::string_view::npos) return false;
  for (const std::string_view sign :
       {"Premature end", "premature end", "Corrupt", "corrupt", "truncated", "incomplete",
        "CRC error", "Read error", "not enough image data"}) {
    if (message.find(sign) != std::string_view::npos) return true;
  }
  return false;
}

cv::Mat read_rgb_pixels(const fs::path& path, const ImageLimits& limits, int page,
                        std::string* decoder_said, const fs::path& named_as) {
  check_file_size(path, limits);
  // Every format's declared size before its decoder runs, with one message (image_header.h): a
  // TIFF's from the directory of the page asked for (its pages may each declare another size).
  if (const auto size = read_image_size(path))
    check_declared_size(path.string(), size->first, size->second, limits.max_pixels);
  if (is_tiff(path)) check_tiff_page(path, page, limits);
  const std::string ext = (named_as.empty() ? path : named_as).extension().string();
  const std::vector<unsigned char> head = read_prefix(path, 12);
  const bool jpeg = head.size() >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF;
  static const unsigned char kPng[4] = {0x89, 'P', 'N', 'G'};
  const bool png = head.size() >= 4 && std::equal(kPng, kPng + 4, head.begin());
  const bool webp = head.size() >= 12 && std::equal(head.begin(), head.begin() + 4, "RIFF") &&
                    std::equal(head.begin() + 8, head.begin() + 12, "WEBP");
  const bool bmp = head.size() >= 2 && head[0] == 'B' && head[1] == 'M';
  // OpenCV picks a decoder by the file's content, not its name, and Debian's build carries more
  // than docsift reads: GDCM for DICOM ("DICM" at byte 128) aborts the whole process on a damaged
  // file (an assert, found by the image_decode fuzz target; bench/fuzz/README.md), and JPEG 2000,
  // Sun raster, PNM, PFM and Radiance decoders are attack surface nobody asked for. Only the five
  // formats docsift documents reach a decoder.
  if (!jpeg && !png && !webp && !bmp && !is_tiff_header(head)) {
    throw FileError(
        path.string() +
        ": not a PNG, JPEG, TIFF, WebP or BMP file (its first bytes are none of theirs" +
        (ext.empty() ? std::string(")") : "; is it really a " + ext.substr(1) + " file?)") +
        "; docsift decodes only those image formats");
  }
  cv::Mat img;
  int orientation = 1;
  DecoderMessages decoder;
  try {
    if (page > 0) {
      // A later page of a multi-page TIFF (page 0 goes the common way, with its orientation).
      std::vector<cv::Mat> pages;
      if (!is_tiff(path) || !cv::imreadmulti(path.string(), pages, page, 1, cv::IMREAD_UNCHANGED) ||
          pages.empty()) {
        throw FileError(path.string() + ": has no page " + std::to_string(page + 1));
      }
      img = pages.front();
    } else if (png || webp) {
      // Read once: the same bytes are decoded and give the EXIF orientation.
      std::ifstream in(path, std::ios::binary);
      const std::vector<unsigned char> bytes{std::istreambuf_iterator<char>(in), {}};
      img = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
      orientation = exif_orientation(bytes.data(), bytes.size());
    } else {
      // JPEG through IMREAD_COLOR so libjpeg converts CMYK/YCCK and EXIF orientation is applied;
      // the rest unchanged so that alpha and 16-bit samples can be handled here.
      img = cv::imread(path.string(), jpeg ? cv::IMREAD_COLOR : cv::IMREAD_UNCHANGED);
    }
  } catch (const cv::Exception& e) {
    decoder.finish();
    throw FileError(path.string() + ": cannot decode: " + e.what());
  }
  const std::string said = decoder.finish();
  if (img.empty()) {
    throw FileError(path.string() +
                    ": not a decodable image (truncated, damaged, or not really a " +
                    (ext.empty() ? std::string("image") : ext.substr(1)) + " file" +
                    (said.empty() ? "" : "; the decoder said: " + said) + ")");
  }
  // After the decoder, whatever the header said: a file whose header reads one way to docsift and
  // another to the decoder (a TIFF tag given twice) is refused here. OpenCV's own limit
  // (OPENCV_IO_MAX_IMAGE_PIXELS) cannot be this second line: it is read once, when the library
  // loads, before docsift can set it (docs/run.md, "Decode").
  if (static_cast<std::uint64_t>(img.cols) * static_cast<std::uint64_t>(img.rows) >
      limits.max_pixels) {
    throw FileError(path.string() + ": decoded to " + std::to_string(img.cols) + "×" +
                    std::to_string(img.rows) + " pixels, over the limit of " +
                    std::to_string(limits.max_pixels / 1'000'000) +
                    " megapixels, though its header said less (a damaged or hostile file)");
  }
  if (!said.empty() && decoder_lost_data(said) && !limits.accept_truncated) {
    throw FileError(path.string() + ": truncated or damaged image data (the decoder said: " + said +
                    "); to read what decodes anyway, set input.accept_truncated: true");
  }
  if (decoder_said != nullptr) *decoder_said = said;
  img = oriented(img, orientation);
  return to_rgb8(img, path);
}

}  // namespace docsift::io
