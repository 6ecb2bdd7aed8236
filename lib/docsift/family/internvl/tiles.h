// InternVL3 image preprocessing: dynamic tiling into 448×448 tiles plus a thumbnail, as the
// transformers-native (-hf) GotOcr2 image processor does it, then ImageNet normalisation.
//
// Resize choice, by `resample`: the -hf processor resizes uint8 CHW tensors with torchvision's
// bicubic + antialias, which for uint8 on the CPU is LibTorch's native uint8
// `_upsample_bicubic2d_aa` (fixed-point, ported from Pillow-SIMD); docsift calls the same kernel
// (Resample::Torch), so the tiles are identical to the reference's byte for byte (tested). The
// original remote-code path
// (`chat()`) resizes PIL images with Pillow's bicubic, which that kernel misses by a few levels
// where one axis grows while the other shrinks; Resample::Pil is Pillow's algorithm exactly
// (image/pil_resize.h, tested against Pillow's bytes). A float32 resize with clamp and round, the
// obvious alternative, differs by up to 13 levels at text edges.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "docsift/image/resample.h"

namespace docsift::family::internvl {

struct TileGrid {
  int columns = 1;
  int rows = 1;
  int tiles() const { return columns * rows; }
};

// The grid of tiles whose aspect ratio is closest to width/height, among grids with
// min_tiles ≤ columns·rows ≤ max_tiles. Candidates are visited by area (columns-major within an
// area); on an exact tie the later candidate wins while the image area exceeds half the grid's
// pixel area, the reference's rule for preferring more tiles on large images.
TileGrid choose_grid(int width, int height, int min_tiles, int max_tiles, int tile_size = 448);

struct InternVLImage {
  TileGrid grid;
  // [N, 3, 448, 448] uint8: the grid's tiles row-major, then the thumbnail when N > 1.
  at::Tensor tiles_u8;
  // [N, 3, 448, 448] float32, (x/255 − mean) / std with ImageNet mean and std.
  at::Tensor pixel_values;
};

// `rgb_hwc` is a [H, W, 3] uint8 tensor (RGB order, any strides). Throws docsift::Error for other
// shapes or types and for max_tiles < 1.
InternVLImage preprocess_internvl(const at::Tensor& rgb_hwc, int max_tiles, int tile_size = 448,
                                  image::Resample resample = image::Resample::Torch);

}  // namespace docsift::family::internvl
