// Llama 3.2 Vision behind the family interface: config.json (4.45 and 5.x styles), the Llama 3.2
// Vision chat format, tiling into up to 4 tiles, and the memory plan's terms (cross-attention K/V
// per image, the vision encoder over every tile slot).
#pragma once

#include <memory>

#include "docsift/family/family.h"

namespace docsift::family::mllama {

// Recognises "mllama" (MllamaForConditionalGeneration).
std::unique_ptr<Family> open_mllama(const model::Checkpoint& checkpoint,
                                    const FamilyOptions& options);

}  // namespace docsift::family::mllama
