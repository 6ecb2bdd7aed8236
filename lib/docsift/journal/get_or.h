// The journal's typed JSON reading, shared by the record and the summary (record.cpp,
// summary.cpp): internal to journal/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "docsift/error.h"
#include "docsift/io/journal.h"
#include "docsift/json_fields.h"

namespace docsift::journal::detail {

// A key of `j` as T, or `fallback` when absent or null; io::BadRecord naming the key when present
// with another type (the caller adds where: a journal's file and line, or a worker's reply).
template <class T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (const std::optional<T> value = json_value_as<T>(*it)) return *value;
  throw io::BadRecord(std::string("\"") + key + "\" is " + it->type_name() +
                      ", not the expected type (or out of range)");
}

// A summary's key: as get_or, a FileError naming `where`.
template <class T>
T get_or(const nlohmann::json& j, const char* key, T fallback, const std::string& where) {
  try {
    return get_or<T>(j, key, fallback);
  } catch (const io::BadRecord& e) {
    throw FileError(where + ": " + e.what());
  }
}

}  // namespace docsift::journal::detail
