// The sections of the config keys that schema_model.cpp declares, for schema.cpp's declared_keys,
// which lists them in order with the rest. Private to config/.
#pragma once

#include <vector>

#include "docsift/config/fields.h"

namespace docsift::config {

std::vector<Field> model_keys();
std::vector<Field> vision_keys();
std::vector<Field> generation_keys();
std::vector<Field> memory_keys();

}  // namespace docsift::config
