#include "docsift/config/fields.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "docsift/error.h"

namespace docsift::config {

std::string Where::text() const {
  if (is_file && node != nullptr && node->Mark().line >= 0) {
    return source + ":" + std::to_string(node->Mark().line + 1) + ":" +
           std::to_string(node->Mark().column + 1);
  }
  return source;
}

void fail(const Where& where, std::string_view key, const std::string& problem) {
  throw ConfigError(where.text() + ": " + std::string(key) + ": " + problem);
}

std::string shown(const YAML::Node& node) {
  if (node.IsNull()) return "null";
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsSequence()) return "a list";
  return "a mapping";
}

std::string scalar(const YAML::Node& node, const Where& where, std::string_view key,
                   std::string_view want) {
  if (!node.IsScalar()) fail(where, key, "expected " + std::string(want) + ", got " + shown(node));
  return node.Scalar();
}

long long integer(const YAML::Node& node, const Where& where, std::string_view key, long long lo,
                  long long hi) {
  const std::string want = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const std::string s = scalar(node, where, key, want);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value < lo || value > hi) {
    fail(where, key, "expected " + want + ", got '" + s + "'");
  }
  return value;
}

double real(const YAML::Node& node, const Where& where, std::string_view key, double lo, double hi,
            Bound lower) {
  const bool open = lower == Bound::kOpen;
  std::ostringstream want;
  want << "a number " << (open ? "> " : ">= ") << lo << " and <= " << hi;
  const std::string s = scalar(node, where, key, want.str());
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value) ||
      (open ? value <= lo : value < lo) || value > hi) {
    fail(where, key, "expected " + want.str() + ", got '" + s + "'");
  }
  return value;
}

YAML::Node flow_list(const std::vector<std::string>& items) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& item : items) list.push_back(item);
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

}  // namespace docsift::config
