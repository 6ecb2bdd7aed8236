// Typed reads from a JSON object we did not write (tokenizer.json, config.json), with errors
// that say where: "<file>: <section>: "key" must be a string". Wraps an object owned elsewhere.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "docsift/error.h"

namespace docsift {

// `value` as T when it holds one that fits, else nullopt. An integer type takes only JSON
// integers within its range: nlohmann turns a float into an integer with a bare cast, undefined
// behaviour out of range ("generated": 7.7e40 in a torn journal line, found by fuzz_journal).
template <class T>
std::optional<T> json_value_as(const nlohmann::json& value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (value.is_number_unsigned()) {
      const auto v = value.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(v);
    }
    if (!value.is_number_integer()) return std::nullopt;
    const auto v =
        value.get<std::int64_t>();  // negative here: the parser keeps the others unsigned
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0) return std::nullopt;
    } else if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
               v > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
      return std::nullopt;
    }
    return static_cast<T>(v);
  } else {
    try {
      return value.get<T>();
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  }
}

class JsonFields {
 public:
  // `where` names the object in messages ("tokenizer.json: model"). Throws FileError unless
  // `object` is a JSON object.
  JsonFields(const nlohmann::json& object, std::string where)
      : object_(object), where_(std::move(where)) {
    if (!object_.is_object())
      fail("expected a JSON object, found " + std::string(object_.type_name()));
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw FileError(where_ + ": " + message);
  }
  // "<where>: key = value is not supported (supported: ...)", for config values docsift cannot run.
  [[noreturn]] void unsupported(const char* key, const std::string& value,
                                const std::string& supported) const {
    fail(std::string(key) + " = " + value + " is not supported (supported: " + supported + ")");
  }
  const std::string& where() const { return where_; }

  // The value, or nullptr when the key is absent or null.
  const nlohmann::json* find(const char* key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  const nlohmann::json& require(const char* key) const {
    const nlohmann::json* value = find(key);
    if (value == nullptr) fail(std::string("missing \"") + key + "\"");
    return *value;
  }
  JsonFields child(const char* key) const { return JsonFields(require(key), where_ + "." + key); }

  std::string string(const char* key) const {
    const nlohmann::json& value = require(key);
    if (!value.is_string()) fail(std::string("\"") + key + "\" must be a string");
    return value.get<std::string>();
  }
  std::optional<std::string> optional_string(const char* key) const {
    if (find(key) == nullptr) return std::nullopt;
    return string(key);
  }
  std::string string(const char* key, const std::string& fallback) const {
    return optional_string(key).value_or(fallback);
  }
  bool boolean(const char* key, bool fallback) const {
    const nlohmann::json* value = find(key);
    if (value == nullptr) return fallback;
    if (!value->is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
    return value->get<bool>();
  }
  int64_t integer(const char* key) const {
    const nlohmann::json& value = require(key);
    if (!value.is_number_integer()) fail(std::string("\"") + key + "\" must be an integer");
    return value.get<int64_t>();
  }
  int64_t integer(const char* key, int64_t fallback) const {
    return find(key) ? integer(key) : fallback;
  }
  double number(const char* key) const {
    const nlohmann::json& value = require(key);
    if (!value.is_number()) fail(std::string("\"") + key + "\" must be a number");
    return value.get<double>();
  }
  double number(const char* key, double fallback) const {
    return find(key) ? number(key) : fallback;
  }
  // An image or patch size: an integer, or a square [n, n] as some vision configs write it.
  int64_t square_size(const char* key, int64_t fallback) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return fallback;
    if (v->is_number_integer()) return v->get<int64_t>();
    if (v->is_array() && v->size() == 2 && (*v)[0].is_number_integer() && (*v)[0] == (*v)[1]) {
      return (*v)[0].get<int64_t>();
    }
    fail(std::string("\"") + key + "\" must be an integer or a square [n, n]");
  }
  // A list of integers (empty when absent).
  std::vector<int64_t> integers(const char* key) const {
    std::vector<int64_t> out;
    const nlohmann::json* v = find(key);
    if (v == nullptr) return out;
    if (!v->is_array()) fail(std::string("\"") + key + "\" must be a list of integers");
    for (const auto& e : *v) {
      if (!e.is_number_integer()) fail(std::string("\"") + key + "\" must be a list of integers");
      out.push_back(e.get<int64_t>());
    }
    return out;
  }

 private:
  const nlohmann::json& object_;
  std::string where_;
};

}  // namespace docsift
