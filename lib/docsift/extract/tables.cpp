#include "docsift/extract/tables.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "docsift/error.h"
#include "docsift/extract/field.h"
#include "docsift/strict_json.h"

namespace docsift::extract {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxRows = 1000;

std::string where(const std::filesystem::path& path, const YAML::Node& node) {
  return path.string() + ":" + std::to_string(node.Mark().line + 1);
}

bool known_column(const std::string& c) {
  return std::find(std::begin(kRowColumns), std::end(kRowColumns), c) != std::end(kRowColumns);
}

TableSpec read_table(const YAML::Node& node, const std::filesystem::path& path) {
  if (!node.IsMap()) throw ConfigError(where(path, node) + ": each table must be a mapping");
  TableSpec t;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    try {
      if (key == "name") {
        t.name = v.as<std::string>();
      } else if (key == "applies_to") {
        t.applies_to = v.as<std::vector<std::string>>();
      } else if (key == "columns") {
        t.columns = v.as<std::vector<std::string>>();
      } else if (key == "instruction") {
        t.instruction = v.as<std::string>();
      } else if (key == "max_tokens") {
        t.max_tokens = v.as<int>();
      } else {
        throw ConfigError("unknown key '" + key +
                          "' (known: name, applies_to, columns, instruction, max_tokens)");
      }
    } catch (const YAML::Exception& e) {
      throw ConfigError(where(path, v) + ": " + key + ": " + e.msg);
    } catch (const ConfigError& e) {
      throw ConfigError(where(path, v) + ": " + e.what());
    }
  }
  if (!valid_schema_name(t.name))
    throw ConfigError(where(path, node) + ": table name '" + t.name +
                      "' must be upper-case letters, digits and _");
  if (t.columns.empty() || t.columns.front() != "description" ||
      !std::all_of(t.columns.begin(), t.columns.end(), known_column)) {
    throw ConfigError(where(path, node) + ": table " + t.name +
                      ": columns must start with description and name only description, quantity, "
                      "unit_price, amount, date, debit, credit, balance");
  }
  if (t.instruction.empty())
    throw ConfigError(where(path, node) + ": table " + t.name + " has no instruction");
  if (t.max_tokens < 1 || t.max_tokens > 8192)
    throw ConfigError(where(path, node) + ": table " + t.name + ": max_tokens must be 1 to 8192");
  return t;
}

// A cell as the model wrote it: a string trimmed, a number as JSON writes it; none for null, "",
// "N/A" (and their like).
std::optional<std::string> cell_text(const nlohmann::json& v) {
  std::string s;
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number()) {
    s = v.dump();
  } else if (v.is_null()) {
    return std::nullopt;
  } else {
    throw std::invalid_argument("a cell is neither a string nor a number");
  }
  const std::string upper = folded(s);
  if (upper.empty() || upper == "N/A" || upper == "NA" || upper == "NONE") return std::nullopt;
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

bool TableSpec::applies(std::string_view document_type) const {
  return applies_to_type(applies_to, document_type);
}

std::vector<TableSpec> read_tables(const YAML::Node& tables, const std::filesystem::path& path) {
  std::vector<TableSpec> out;
  if (!tables) return out;
  if (!tables.IsSequence()) throw ConfigError(where(path, tables) + ": 'tables' must be a list");
  for (const YAML::Node& node : tables) {
    TableSpec t = read_table(node, path);
    for (const TableSpec& seen : out) {
      if (seen.name == t.name)
        throw ConfigError(where(path, node) + ": table " + t.name + " appears twice");
    }
    out.push_back(std::move(t));
  }
  return out;
}

ParsedTable parse_table(std::string_view answer, const TableSpec& table) {
  ParsedTable out;
  const std::string key = table.name + ":";
  std::size_t at = 0;
  while (at < answer.size()) {
    const std::size_t end = std::min(answer.find('\n', at), answer.size());
    std::string_view line = answer.substr(at, end - at);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
      line.remove_prefix(1);
    if (line.substr(0, key.size()) == key) {
      out.found = true;
      std::string_view value = line.substr(key.size());
      if (is_missing(value)) return out;
      if (value.size() > kMaxLine) {
        out.problem = "the line is over 64 KiB";
        return out;
      }
      nlohmann::json json;
      try {
        // Depth 2: the array, its objects, their cells; deeper is never built.
        json = parse_json_strict(value, table.name, /*max_depth=*/2);
      } catch (const FileError&) {
        out.problem = "not a JSON array of objects";
        return out;
      }
      if (!json.is_array()) {
        out.problem = "not a JSON array";
        return out;
      }
      if (json.size() > kMaxRows) {
        out.problem = "more than 1,000 rows";
        return out;
      }
      try {
        for (const nlohmann::json& item : json) {
          if (!item.is_object()) throw std::invalid_argument("a row is not an object");
          TableRow row;
          for (const auto& [column, v] : item.items()) {
            if (std::find(table.columns.begin(), table.columns.end(), column) ==
                table.columns.end())
              throw std::invalid_argument("a row has the column '" + column +
                                          "', not one of the table's");
            if (auto text = cell_text(v)) row[column] = std::move(*text);
          }
          if (!row.empty()) out.rows.push_back(std::move(row));
        }
      } catch (const std::invalid_argument& e) {
        out.rows.clear();
        out.problem = e.what();
      }
      return out;
    }
    at = end + 1;
  }
  return out;
}

}  // namespace docsift::extract
