// InternVL3 behind the family interface: config.json (both layouts), the InternVL chat formats,
// dynamic 448-pixel tiling, and the memory plan's terms.
#pragma once

#include <memory>

#include "docsift/family/family.h"

namespace docsift::family::internvl {

// Recognises "internvl_chat" (InternVLChatModel) and "internvl" (InternVLForConditionalGeneration).
std::unique_ptr<Family> open_internvl(const model::Checkpoint& checkpoint, const FamilyOptions&);

}  // namespace docsift::family::internvl
