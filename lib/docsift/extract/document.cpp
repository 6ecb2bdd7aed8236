#include "docsift/extract/document.h"

#include <algorithm>
#include <set>

#include "docsift/extract/field.h"

namespace docsift::extract {

namespace {

// The page's value of `field`, when it has one that is not missing.
const std::string* value_of(const PageValues& page, const std::string& field) {
  const auto it = page.fields.find(field);
  return it == page.fields.end() || is_missing(it->second) ? nullptr : &it->second;
}

std::optional<double> confidence_of(const PageValues& page, const std::string& field) {
  const auto it = page.confidence.find(field);
  return it == page.confidence.end() ? std::nullopt : std::optional(it->second);
}

}  // namespace

std::map<std::string, PageRule> page_rules(const FieldSchema& schema) {
  std::map<std::string, PageRule> rules;
  for (const Field& f : schema.fields) {
    if (f.pages != PageRule::kFirst) rules[f.name] = f.pages;
  }
  return rules;
}

PageValues document_values(const std::vector<PageValues>& pages,
                           const std::map<std::string, PageRule>& rules) {
  std::set<std::string> names;
  for (const PageValues& page : pages) {
    for (const auto& [field, value] : page.fields) names.insert(field);
  }
  PageValues out;
  for (const std::string& field : names) {
    const auto it = rules.find(field);
    const PageRule rule = it == rules.end() ? PageRule::kFirst : it->second;
    std::string& value = out.fields[field] = std::string(kMissing);
    if (rule == PageRule::kAll) {
      std::optional<double> lowest;
      bool every_page_sure = true;
      for (const PageValues& page : pages) {
        const std::string* v = value_of(page, field);
        if (!v) continue;
        value = value == kMissing ? *v : value + " | " + *v;
        const auto c = confidence_of(page, field);
        every_page_sure = every_page_sure && c.has_value();
        if (c) lowest = std::min(lowest.value_or(*c), *c);
      }
      if (lowest && every_page_sure) out.confidence[field] = *lowest;
      continue;
    }
    const auto take = [&](const PageValues& page) {
      const std::string* v = value_of(page, field);
      if (!v) return false;
      value = *v;
      if (const auto c = confidence_of(page, field)) out.confidence[field] = *c;
      return true;
    };
    if (rule == PageRule::kLast) {
      std::find_if(pages.rbegin(), pages.rend(), take);
    } else {
      std::find_if(pages.begin(), pages.end(), take);
    }
  }
  return out;
}

}  // namespace docsift::extract
