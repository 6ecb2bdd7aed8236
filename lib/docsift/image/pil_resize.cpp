#include "docsift/image/pil_resize.h"

#include <ATen/ops/empty.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "docsift/error.h"

namespace docsift::image {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;  // Pillow's PRECISION_BITS for 8-bit images

double bicubic(double x) {
  constexpr double a = -0.5;
  x = std::abs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

// For each output position along one axis: the first input index, how many inputs it reads, and
// their fixed-point weights (ksize per output, zero-padded).
struct Coefficients {
  int ksize = 0;
  std::vector<int> first, count;
  std::vector<std::int32_t> weights;
};

Coefficients coefficients(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = 2.0 * filterscale;
  Coefficients c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(out_size);
  c.count.resize(out_size);
  c.weights.assign(static_cast<std::size_t>(out_size) * c.ksize, 0);
  std::vector<double> k(c.ksize);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    const int xmin = std::max(0, static_cast<int>(center - support + 0.5));
    const int xmax = std::min(in_size, static_cast<int>(center + support + 0.5)) - xmin;
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      k[x] = bicubic((x + xmin - center + 0.5) * ss);
      ww += k[x];
    }
    for (int x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[x] / ww : k[x];
      // Rounded half away from zero, as Pillow's normalize_coeffs_8bpc.
      c.weights[static_cast<std::size_t>(xx) * c.ksize + x] = static_cast<std::int32_t>(
          w < 0 ? -0.5 + w * (1 << kPrecisionBits) : 0.5 + w * (1 << kPrecisionBits));
    }
    c.first[xx] = xmin;
    c.count[xx] = xmax;
  }
  return c;
}

std::uint8_t clip8(std::int32_t v) {
  v >>= kPrecisionBits;  // arithmetic shift: Pillow's lookup table clamps what falls outside 0..255
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

}  // namespace

at::Tensor pil_resize_bicubic(const at::Tensor& rgb_hwc, int64_t height, int64_t width) {
  if (rgb_hwc.dim() != 3 || rgb_hwc.scalar_type() != at::kByte || height < 1 || width < 1) {
    throw Error("pil_resize_bicubic expects an [H, W, C] uint8 image and a positive size");
  }
  const at::Tensor in = rgb_hwc.contiguous();
  const int ih = static_cast<int>(in.size(0)), iw = static_cast<int>(in.size(1)),
            ch = static_cast<int>(in.size(2));
  const int oh = static_cast<int>(height), ow = static_cast<int>(width);
  if (ih == oh && iw == ow) return in.clone();  // Pillow returns a copy
  const Coefficients horizontal = coefficients(iw, ow), vertical = coefficients(ih, oh);
  const std::uint8_t* src = in.data_ptr<std::uint8_t>();

  // Horizontal pass, over the input rows the vertical pass reads (all rows when only the width
  // changes), rounded to 8 bits as Pillow's intermediate image is.
  const bool need_horizontal = iw != ow, need_vertical = ih != oh;
  const int row_first = need_vertical ? vertical.first[0] : 0;
  const int row_last = need_vertical ? vertical.first[oh - 1] + vertical.count[oh - 1] : ih;
  at::Tensor mid_tensor;
  const std::uint8_t* mid = src;
  int mid_width = iw;
  if (need_horizontal) {
    mid_tensor = at::empty({row_last - row_first, ow, ch}, at::kByte);
    auto* out = mid_tensor.data_ptr<std::uint8_t>();
    for (int y = row_first; y < row_last; ++y) {
      const std::uint8_t* row = src + static_cast<std::ptrdiff_t>(y) * iw * ch;
      for (int xx = 0; xx < ow; ++xx) {
        const std::int32_t* k =
            &horizontal.weights[static_cast<std::size_t>(xx) * horizontal.ksize];
        for (int c = 0; c < ch; ++c) {
          std::int32_t ss = 1 << (kPrecisionBits - 1);
          for (int x = 0; x < horizontal.count[xx]; ++x)
            ss += row[(x + horizontal.first[xx]) * ch + c] * k[x];
          out[(static_cast<std::ptrdiff_t>(y - row_first) * ow + xx) * ch + c] = clip8(ss);
        }
      }
    }
    mid = out;
    mid_width = ow;
  }
  if (!need_vertical) return mid_tensor;

  at::Tensor result = at::empty({oh, ow, ch}, at::kByte);
  auto* out = result.data_ptr<std::uint8_t>();
  const int offset = need_horizontal ? row_first : 0;  // mid's first row is input row row_first
  for (int yy = 0; yy < oh; ++yy) {
    const std::int32_t* k = &vertical.weights[static_cast<std::size_t>(yy) * vertical.ksize];
    const int first = vertical.first[yy] - offset;
    for (int xx = 0; xx < ow; ++xx) {
      for (int c = 0; c < ch; ++c) {
        std::int32_t ss = 1 << (kPrecisionBits - 1);
        for (int y = 0; y < vertical.count[yy]; ++y) {
          ss += mid[(static_cast<std::ptrdiff_t>(first + y) * mid_width + xx) * ch + c] * k[y];
        }
        out[(static_cast<std::ptrdiff_t>(yy) * ow + xx) * ch + c] = clip8(ss);
      }
    }
  }
  return result;
}

}  // namespace docsift::image
