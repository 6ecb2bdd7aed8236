// Build facts for `docsift --version` and every result record.
#pragma once

#include <string>

namespace docsift {

std::string version();           // "0.1.0"
std::string libtorch_version();  // the LibTorch the binary was built against, "2.11.0"

}  // namespace docsift
