// Reading an image file into RGB pixels, defensively: the pixel count is read from the header
// (PNG, JPEG, BMP, WebP, and the directory of the TIFF page asked for) and refused before any pixel
// is decoded, and the decoded image is checked against the same limit as a second line. JPEG: EXIF
// orientation applied, grayscale and CMYK converted. PNG, TIFF, WebP, BMP: 16-bit scaled to 8-bit,
// grayscale expanded, alpha composited onto white (a transparent page background is paper, not
// black).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <opencv2/core/mat.hpp>

#include "docsift/io/image_header.h"

namespace docsift::io {

// Whether a decoder's message means pixels were lost, not just an oddity of the file: libjpeg's
// "Premature end of JPEG file" and "Corrupt JPEG data", libpng's CRC and incomplete-data errors,
// libtiff's read errors.
bool decoder_lost_data(std::string_view message);

// Throws docsift::FileError when `path` is not a regular file, is empty, or is over
// limits.max_file_bytes: checked before any file is decoded or rendered.
void check_file_size(const std::filesystem::path& path, const ImageLimits& limits);

// Width and height from the file header, for PNG, JPEG, BMP and WebP; nullopt for other formats or
// a header too short to say. Throws docsift::FileError for a malformed header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> read_image_size(
    const std::filesystem::path& path);

// The page's pixels as an H × W CV_8UC3 matrix in RGB order (not OpenCV's BGR), owning them;
// LibTorch-free, so the fuzz build decodes through it too (io/pages.h wraps it as a tensor). Throws
// docsift::FileError naming the file and the problem: missing, empty, too large, too many pixels,
// not decodable, or truncated (lost data, unless limits.accept_truncated). `page` (0-based) picks a
// page of a multi-page TIFF; other formats have only page 0. What the decoder library said about an
// image that did decode goes to `*decoder_said` (never to stderr).
// `named_as`: the file's own name where `path` is another way to it (/proc/self/fd/N,
// pinned_file.h), for the extension the messages mention.
cv::Mat read_rgb_pixels(const std::filesystem::path& path, const ImageLimits& limits = {},
                        int page = 0, std::string* decoder_said = nullptr,
                        const std::filesystem::path& named_as = {});

// Pages of a TIFF (fax and scanner output often has several); 1 for every other format.
int image_page_count(const std::filesystem::path& path);

}  // namespace docsift::io
