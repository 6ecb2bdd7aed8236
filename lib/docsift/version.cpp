#include "docsift/version.h"

#include <torch/version.h>

namespace docsift {

std::string version() { return DOCSIFT_VERSION; }
std::string libtorch_version() { return TORCH_VERSION; }

}  // namespace docsift
