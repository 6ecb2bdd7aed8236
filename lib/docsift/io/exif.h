// EXIF orientation (tag 0x0112) for the formats OpenCV leaves unrotated when it decodes them
// unchanged: a PNG's eXIf chunk, a WebP's EXIF chunk, a TIFF file's own first IFD. A bounded
// parser over untrusted bytes: every offset and count is checked against the data, and anything
// absent or malformed reads as 1 (as stored). No LibTorch, no OpenCV: fuzzable.
#pragma once

#include <cstddef>
#include <cstdint>

namespace docsift::io {

// 1..8 as EXIF defines them (1: as stored; 6: rotate 90° clockwise to display; ...).
int exif_orientation(const unsigned char* data, std::size_t size);

// The orientation inside a TIFF-structured EXIF block ("II*\0" or "MM\0*", optionally after
// "Exif\0\0"), or 1.
int tiff_orientation(const unsigned char* data, std::size_t size);

}  // namespace docsift::io
