// memory.cleanup: whether cleanup() (cleanup.h) runs after every image. Apart from cleanup.h so
// that config/ (and the config fuzz target) need no LibTorch header.
#pragma once

#include <string_view>

#include "docsift/names.h"

namespace docsift::memory {

// After every image, or never (to measure what cleanup saves).
enum class Cleanup { AfterImage, Never };
inline constexpr Names<Cleanup, 2> kCleanupNames{
    {{Cleanup::AfterImage, "after_image"}, {Cleanup::Never, "never"}}};
constexpr std::string_view to_string(Cleanup v) { return name_of(kCleanupNames, v); }

}  // namespace docsift::memory
