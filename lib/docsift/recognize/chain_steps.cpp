// The one loop of chain.h's fused steps. Built with -ffp-contract=off and without the precompiled
// LibTorch header (lib/CMakeLists.txt): each step is one IEEE operation as LibTorch's own kernel
// does it (add, mul, div: x op a; clamp: min(max(x, lo), hi); hardswish as ONNX spells it:
// x · clip(x + 3, 0, 6) / 6), so a compiler that may fuse a multiply and an add must not.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "docsift/recognize/chain.h"

namespace docsift::recognize {

// Built twice, for AVX2 and for any x86-64, the better one chosen when the program loads: 8 floats
// at a time where the machine has them (neither has a fused multiply-add).
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void run_steps(const std::vector<Step>& steps, const float* in, float* out, std::size_t n) {
  // In blocks that stay in the first-level cache: one pass over memory, each step a loop the
  // compiler vectorises.
  constexpr std::size_t kBlock = 1024;
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t end = std::min(n, start + kBlock);
    const float* src = in + start;
    float* dst = out + start;
    const std::size_t m = end - start;
    for (const Step& s : steps) {
      switch (s.kind) {
        case Step::Kind::Add:
          for (std::size_t i = 0; i < m; ++i) dst[i] = src[i] + s.a;
          break;
        case Step::Kind::Sub:
          for (std::size_t i = 0; i < m; ++i) dst[i] = src[i] - s.a;
          break;
        case Step::Kind::Mul:
          for (std::size_t i = 0; i < m; ++i) dst[i] = src[i] * s.a;
          break;
        case Step::Kind::Div:
          for (std::size_t i = 0; i < m; ++i) dst[i] = src[i] / s.a;
          break;
        case Step::Kind::Clip:
          for (std::size_t i = 0; i < m; ++i) dst[i] = std::min(std::max(src[i], s.lo), s.hi);
          break;
        case Step::Kind::Relu:
          for (std::size_t i = 0; i < m; ++i) dst[i] = std::max(src[i], 0.0f);
          break;
        case Step::Kind::HardSwish:
          for (std::size_t i = 0; i < m; ++i) {
            const float x = src[i];
            const float clipped = std::min(std::max(x + s.a, s.lo), s.hi);
            dst[i] = x * clipped / s.b;
          }
          break;
      }
      src = dst;  // the next step reads what this one wrote
    }
    if (steps.empty())
      for (std::size_t i = 0; i < m; ++i) dst[i] = src[i];
  }
}

}  // namespace docsift::recognize
