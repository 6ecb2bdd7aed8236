// How images are resized for the model (vision.resample): as the checkpoint's reference code does
// (auto), with Pillow's bicubic (what InternVL3's original-layout chat() uses on PIL images), or
// with torchvision's tensor path (what the -hf processor uses). docs/models.md has the details.
#pragma once

#include <string_view>

#include "docsift/names.h"

namespace docsift::image {

enum class Resample { Auto, Pil, Torch };

inline constexpr Names<Resample, 3> kResampleNames{
    {{Resample::Auto, "auto"}, {Resample::Pil, "pil"}, {Resample::Torch, "torch"}}};

constexpr std::string_view to_string(Resample v) { return name_of(kResampleNames, v); }

}  // namespace docsift::image
