// The registry's LibTorch-free half: each family's config keys. A family with settings adds one
// line here (its folder declares them).
#include "docsift/family/settings.h"

#include "docsift/family/mllama/options.h"

namespace docsift::family {

std::string_view setting_value(const SettingValues& values, const FamilySetting& setting) {
  const auto it = values.find(setting.key);
  return it != values.end() ? std::string_view(it->second) : setting.choices.front();
}

const std::vector<FamilySetting>& family_settings() {
  static const std::vector<FamilySetting> all{mllama::cross_attention_rows_setting()};
  return all;
}

}  // namespace docsift::family
