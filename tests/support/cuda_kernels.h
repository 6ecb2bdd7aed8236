// Whether a GPU case of docsift's own CUDA kernels (the plugin's GEMVs, fused norm, attention) can
// run here. Each such case starts with
//
//   if (const std::string why = docsift::testing::why_no_cuda_kernels(); !why.empty())
//   DOCSIFT_SKIP(why);
//
// so that without a GPU, or with a LibTorch that has no CUDA, it reports itself skipped.
#pragma once

#include <string>

namespace docsift::testing {

// Empty when the kernels are compiled in and a CUDA device is usable; else the reason.
std::string why_no_cuda_kernels();

}  // namespace docsift::testing
