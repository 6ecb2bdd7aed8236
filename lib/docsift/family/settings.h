// The config keys a family reads (model.<name>), declared in the family's own folder and listed
// here, the registry's LibTorch-free half: config/ adds each as a key with its help and choices,
// and knows no family. No LibTorch (the fuzz build instruments config/ with it).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::family {

struct FamilySetting {
  std::string_view key;                   // the config key, "model.cross_attention_rows"
  std::string_view help;                  // for `docsift config --keys` and docs/config.md
  std::vector<std::string_view> choices;  // the first is the default
};

// Chosen values by key; a key that is absent has its default.
using SettingValues = std::map<std::string, std::string, std::less<>>;

// `setting`'s value in `values`, or its default.
std::string_view setting_value(const SettingValues& values, const FamilySetting& setting);

// A model_type near a family's that docsift refuses by name, with why (a family's folder lists
// them; the registry says so instead of "not supported").
struct RefusedType {
  std::string_view model_type;
  std::string_view why;
};

// Every family's settings, in the order config's key list shows them.
const std::vector<FamilySetting>& family_settings();

}  // namespace docsift::family
