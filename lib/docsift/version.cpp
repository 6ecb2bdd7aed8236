#include "docsift/version.h"

#if DOCSIFT_WITH_TORCH
#include <torch/version.h>
#endif

namespace docsift {

std::string version() { return DOCSIFT_VERSION; }
#if DOCSIFT_WITH_TORCH
std::string libtorch_version() { return TORCH_VERSION; }
#else
std::string libtorch_version() {
  return "none (built with DOCSIFT_WITH_TORCH=OFF: the OCR engine only)";
}
#endif

}  // namespace docsift
