// Qwen2.5-VL behind the family interface: config.json and the image processor's file (both
// layouts), the checkpoint's chat template, smart_resize preprocessing, and the memory plan's
// terms.
#pragma once

#include <memory>

#include "docsift/family/family.h"

namespace docsift::family::qwen25vl {

// Recognises "qwen2_5_vl" (Qwen2_5_VLForConditionalGeneration).
std::unique_ptr<Family> open_qwen25vl(const model::Checkpoint& checkpoint,
                                      const FamilyOptions& options);

}  // namespace docsift::family::qwen25vl
