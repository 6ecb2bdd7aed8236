// How config keys are declared (schema.cpp): each key is one Field made by a typed factory that
// names the key once and reaches its member through one accessor lambda, which serves both for
// setting (from YAML or --set) and for writing it back (to_yaml). Private to config/.
#pragma once

#include <charconv>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "docsift/config/config.h"
#include "docsift/names.h"

namespace docsift::config {

// Where a value came from, for error messages: "configs/a.yaml:12:5" or "--set a.b=c".
struct Where {
  std::string source;
  const YAML::Node* node = nullptr;  // gives line:column when the source is a file
  bool is_file = false;
  std::string text() const;
};

[[noreturn]] void fail(const Where& where, std::string_view key, const std::string& problem);
std::string shown(const YAML::Node& node);  // 'x', null, a list, a mapping

// Scalar decoders: each checks the node and the range, naming the key and the source.
std::string scalar(const YAML::Node& node, const Where& where, std::string_view key,
                   std::string_view want);
long long integer(const YAML::Node& node, const Where& where, std::string_view key, long long lo,
                  long long hi);
enum class Bound { kClosed, kOpen };  // whether the lower bound itself is allowed (closed) or not
double real(const YAML::Node& node, const Where& where, std::string_view key, double lo, double hi,
            Bound lower);

// "a, b, c": an enum's names, for messages.
template <class E, std::size_t N>
std::string choices(const Names<E, N>& names) {
  std::string out;
  for (const auto& [v, n] : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}
template <class E, std::size_t N>
E choice(const YAML::Node& node, const Where& where, std::string_view key,
         const Names<E, N>& names) {
  const std::string s = scalar(node, where, key, "one of " + choices(names));
  for (const auto& [v, n] : names) {
    if (n == s) return v;
  }
  fail(where, key, "expected one of " + choices(names) + ", got '" + s + "'");
}

YAML::Node flow_list(const std::vector<std::string>& items);  // [a, b] on one line

struct Field {
  std::string_view key;
  std::string_view help;
  std::function<void(Config&, const YAML::Node&, const Where&)> set;
  std::function<YAML::Node(const Config&)> get;
};

// A value's extra rule: the problem with it, or "" when it is fine.
template <class T>
using Check = std::function<std::string(const T&)>;

// ---- the factories; `at` is `[](auto& c) -> auto& { return c.section.key; }` ----

template <class At>
Field integer_key(std::string_view key, std::string_view help, long long lo, long long hi, At at) {
  using T = std::remove_cvref_t<decltype(at(std::declval<Config&>()))>;
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            at(c) = static_cast<T>(integer(n, w, key, lo, hi));
          },
          [=](const Config& c) { return YAML::Node(at(c)); }};
}

// "auto" (nullopt) or an integer in range.
template <class At>
Field auto_integer_key(std::string_view key, std::string_view help, long long lo, long long hi,
                       At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            if (n.IsScalar() && n.Scalar() == "auto") {
              at(c).reset();
            } else {
              using T = typename std::remove_cvref_t<decltype(at(c))>::value_type;
              at(c) = static_cast<T>(integer(n, w, key, lo, hi));
            }
          },
          [=](const Config& c) { return at(c) ? YAML::Node(*at(c)) : YAML::Node("auto"); }};
}

// A number as `docsift config` prints it: the shortest text that reads back as the same double
// (0.575, not 0.57499999999999996).
inline YAML::Node number_node(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return YAML::Node(std::string(text, end));
}

template <class At>
Field real_key(std::string_view key, std::string_view help, double lo, double hi, Bound lower,
               At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            at(c) = real(n, w, key, lo, hi, lower);
          },
          [=](const Config& c) { return number_node(at(c)); }};
}

// null (nullopt) or a number in range.
template <class At>
Field optional_real_key(std::string_view key, std::string_view help, double lo, double hi,
                        Bound lower, At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            if (n.IsNull()) {
              at(c).reset();
            } else {
              at(c) = real(n, w, key, lo, hi, lower);
            }
          },
          [=](const Config& c) { return at(c) ? number_node(*at(c)) : YAML::Node(); }};
}

// kNullIsEmpty: null reads as ""; kNullable: also "" is written back as null.
enum class Text { kPlain, kNonEmpty, kNullIsEmpty, kNullable };
template <class At>
Field text_key(std::string_view key, std::string_view help, At at, Text rule,
               Check<std::string> check = {}) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            const bool null_ok = rule == Text::kNullIsEmpty || rule == Text::kNullable;
            std::string value = null_ok && n.IsNull() ? "" : scalar(n, w, key, "a string");
            if (rule == Text::kNonEmpty && value.empty()) fail(w, key, "must not be empty");
            if (check) {
              if (const std::string problem = check(value); !problem.empty()) fail(w, key, problem);
            }
            at(c) = std::move(value);
          },
          [=](const Config& c) {
            return rule == Text::kNullable && at(c).empty() ? YAML::Node() : YAML::Node(at(c));
          }};
}

template <class At>
Field bool_key(std::string_view key, std::string_view help, At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            const std::string v = scalar(n, w, key, "true or false");
            if (v != "true" && v != "false")
              fail(w, key, "expected true or false, got " + shown(n));
            at(c) = v == "true";
          },
          [=](const Config& c) { return YAML::Node(at(c)); }};
}

// An enum by its owner's name table.
template <class E, std::size_t N, class At>
Field choice_key(std::string_view key, std::string_view help, const Names<E, N>& names, At at,
                 std::type_identity_t<Check<E>> check = {}) {
  return {key, help,
          [=, &names](Config& c, const YAML::Node& n, const Where& w) {
            const E value = choice(n, w, key, names);
            if (check) {
              if (const std::string problem = check(value); !problem.empty()) fail(w, key, problem);
            }
            at(c) = value;
          },
          [=, &names](const Config& c) { return YAML::Node(std::string(name_of(names, at(c)))); }};
}

// A string that is one of `words` ("block, auto or sparse").
template <class At>
Field word_key(std::string_view key, std::string_view help, std::vector<std::string> words, At at) {
  std::string listed;
  for (std::size_t i = 0; i < words.size(); ++i) {
    listed += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  }
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            const std::string v = scalar(n, w, key, listed);
            if (std::find(words.begin(), words.end(), v) == words.end()) {
              fail(w, key, "expected " + listed + ", got " + shown(n));
            }
            at(c) = v;
          },
          [=](const Config& c) { return YAML::Node(at(c)); }};
}

// A mapping of names to numbers in [lo, hi] ({TOTAL: 0.95, ABN: 1}), written back in flow style.
template <class At>
Field number_map_key(std::string_view key, std::string_view help, double lo, double hi, At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            if (n.IsNull()) {
              at(c).clear();
              return;
            }
            if (!n.IsMap()) fail(w, key, "expected a mapping of NAME: number, got " + shown(n));
            std::map<std::string, double> values;
            for (const auto& item : n) {
              const std::string name = scalar(item.first, w, key, "a name");
              if (!values
                       .emplace(name, real(item.second, w, std::string(key) + "." + name, lo, hi,
                                           Bound::kClosed))
                       .second) {
                fail(w, key, "'" + name + "' is listed twice");
              }
            }
            at(c) = std::move(values);
          },
          [=](const Config& c) {
            YAML::Node map(YAML::NodeType::Map);
            for (const auto& [name, value] : at(c)) map[name] = number_node(value);
            map.SetStyle(YAML::EmitterStyle::Flow);
            return map;
          }};
}

const std::vector<Field>& schema();  // schema.cpp: every key, in the order to_yaml writes them

}  // namespace docsift::config
