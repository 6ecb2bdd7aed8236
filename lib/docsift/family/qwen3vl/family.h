// Qwen3-VL behind the family interface: config.json and the image processor's file (both
// layouts), the checkpoint's chat template, smart_resize preprocessing (the shared patch
// processor), and the memory plan's terms.
#pragma once

#include <memory>

#include "docsift/family/family.h"

namespace docsift::family::qwen3vl {

// Recognises "qwen3_vl" (Qwen3VLForConditionalGeneration).
std::unique_ptr<Family> open_qwen3vl(const model::Checkpoint& checkpoint,
                                     const FamilyOptions& options);

}  // namespace docsift::family::qwen3vl
