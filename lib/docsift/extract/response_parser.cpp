#include "docsift/extract/response_parser.h"

#include <algorithm>
#include <cctype>

#include "docsift/extract/field.h"

namespace docsift::extract {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Markdown around a key or value: emphasis and code marks at either end, bullets and heading
// marks in front. ("**ABN:** 12 345" and "- **TOTAL**: $5" both reduce to plain text.)
std::string_view strip_markdown(std::string_view s) {
  s = trim(s);
  bool changed = true;
  while (changed && !s.empty()) {
    changed = false;
    for (const std::string_view prefix : {"- ", "* ", "• ", "#", "**", "__", "`", "*", "_", ">"}) {
      if (s.starts_with(prefix)) {
        s.remove_prefix(prefix.size());
        s = trim(s);
        changed = true;
      }
    }
    for (const std::string_view suffix : {"**", "__", "`", "*", "_"}) {
      if (s.ends_with(suffix)) {
        s.remove_suffix(suffix.size());
        s = trim(s);
        changed = true;
      }
    }
  }
  return s;
}

std::string canonical_key(std::string_view key) {
  std::string out;
  for (const char c : strip_markdown(key)) {
    if (c == ' ' || c == '-') {
      out.push_back('_');
    } else {
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> parse_response(std::string_view response,
                                                  const std::vector<std::string>& fields,
                                                  std::map<std::string, ValueSpan>* spans) {
  std::map<std::string, std::string> values;
  for (const auto& field : fields) values[field] = std::string(kMissing);
  std::size_t start = 0;
  while (start <= response.size()) {
    std::size_t end = response.find('\n', start);
    if (end == std::string_view::npos) end = response.size();
    const std::string_view line = strip_markdown(response.substr(start, end - start));
    start = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // chatter, headings, fences
    const auto it = values.find(canonical_key(line.substr(0, colon)));
    if (it == values.end()) continue;  // "Here is the data:", "Note:", unknown keys
    const std::string_view value = strip_markdown(line.substr(colon + 1));
    if (is_missing(it->second) && !is_missing(value)) {
      it->second = std::string(value);
      // strip_markdown returns a view into `response`, so the offset is the value's.
      const auto begin = static_cast<std::size_t>(value.data() - response.data());
      if (spans != nullptr) (*spans)[it->first] = ValueSpan{begin, begin + value.size(), end};
    }
  }
  return values;
}

}  // namespace docsift::extract
