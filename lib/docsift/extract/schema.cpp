#include "docsift/extract/schema.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "docsift/error.h"

namespace docsift::extract {

// Generated at build time from configs/fields/business-documents.yaml (lib/CMakeLists.txt).
std::string_view builtin_schema_text();

namespace {

std::string where(const std::filesystem::path& path, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return path.string() + ":" + std::to_string(mark.line + 1) + ":" +
         std::to_string(mark.column + 1);
}

}  // namespace

bool Field::applies(std::string_view document_type) const {
  return applies_to_type(applies_to, document_type);
}

std::vector<std::string> FieldSchema::names() const {
  std::vector<std::string> out;
  for (const Field& f : fields) out.push_back(f.name);
  return out;
}

std::vector<std::string> FieldSchema::document_types() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Field& f : fields) {
    for (const std::string& t : f.applies_to) {
      if (seen.insert(folded(t)).second) out.push_back(t);
    }
  }
  return out;
}

int default_max_tokens(FieldType type) {
  switch (type) {
    case FieldType::kMonetary:
    case FieldType::kDate:
      return 16;
    case FieldType::kNumericId:
      return 24;
    case FieldType::kList:
      return 128;
    case FieldType::kText:
      return 32;
  }
  return 32;
}

const Field* FieldSchema::find(std::string_view name) const {
  for (const Field& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void FieldSchema::require(std::string_view name, const std::string& setting) const {
  if (find(name) != nullptr) return;
  std::string listed;
  for (const Field& f : fields) listed += (listed.empty() ? "" : ", ") + f.name;
  throw ConfigError(setting + ": '" + std::string(name) + "' is not a field of " + source +
                    " (its fields: " + listed + ")");
}

namespace {

// The schema file (or the built-in one) parsed, and checked to hold a 'fields' list.
YAML::Node load_schema_root(const std::filesystem::path& path) {
  const bool builtin = path.string() == kBuiltinSchema;
  if (!builtin && !std::filesystem::is_regular_file(path)) {
    throw ConfigError(path.string() +
                      ": field schema not found (extraction.fields in the config names it; " +
                      std::string(kBuiltinSchema) + " is the one built in)");
  }
  YAML::Node root;
  try {
    root = builtin ? YAML::Load(std::string(builtin_schema_text())) : YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap() || !root["fields"] || !root["fields"].IsSequence()) {
    throw ConfigError(path.string() + ": expected a mapping with a 'fields' list");
  }
  return root;
}

// One key of a field's mapping, set on `field`; `items:` and `pages:` are also noted for the
// checks made once the whole field is read. Throws YAML::Exception or ConfigError, without a
// location (the caller adds it).
void set_field_key(Field& field, const std::string& key, const YAML::Node& value, bool& has_items,
                   std::optional<PageRule>& pages) {
  if (key == "name") {
    field.name = value.as<std::string>();
  } else if (key == "type") {
    field.type = parse_field_type(value.as<std::string>());
  } else if (key == "items") {
    field.items = parse_item_type(value.as<std::string>());
    has_items = true;
  } else if (key == "pages") {
    pages = parse_page_rule(value.as<std::string>());
  } else if (key == "applies_to") {
    if (!value.IsSequence() || value.size() == 0)
      throw ConfigError("applies_to: expected a non-empty list of document types");
    field.applies_to = value.as<std::vector<std::string>>();
  } else if (key == "instruction") {
    field.instruction = value.as<std::string>();
  } else if (key == "required") {
    field.required = value.as<bool>();
  } else if (key == "max_tokens") {
    const long long cap = value.as<long long>();
    if (cap < 1 || cap > kMaxFieldTokens) {
      throw ConfigError("max_tokens: must be 1 to " + std::to_string(kMaxFieldTokens) + ", not " +
                        std::to_string(cap));
    }
    field.max_tokens = static_cast<int>(cap);
  } else {
    throw ConfigError(
        "unknown key '" + key +
        "' (known: name, type, items, pages, applies_to, instruction, required, max_tokens)");
  }
}

}  // namespace

FieldSchema load_field_schema(const std::filesystem::path& path) {
  const YAML::Node root = load_schema_root(path);
  FieldSchema schema;
  schema.source = path.string();
  std::set<std::string> seen;
  for (const YAML::Node& node : root["fields"]) {
    if (!node.IsMap()) throw ConfigError(where(path, node) + ": each field must be a mapping");
    Field field;
    bool has_items = false;
    std::optional<PageRule> pages;
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      const YAML::Node& value = kv.second;
      try {
        set_field_key(field, key, value, has_items, pages);
      } catch (const YAML::Exception& e) {
        throw ConfigError(where(path, value) + ": " + key + ": " + e.msg);
      } catch (const ConfigError& e) {
        throw ConfigError(where(path, value) + ": " + e.what());
      }
    }
    if (!valid_schema_name(field.name)) {
      throw ConfigError(where(path, node) + ": field name '" + field.name +
                        "' must be upper-case letters, digits and _");
    }
    if (!seen.insert(field.name).second)
      throw ConfigError(where(path, node) + ": field " + field.name + " appears twice");
    if (has_items && field.type != FieldType::kList) {
      throw ConfigError(where(path, node) + ": field " + field.name +
                        " has items: but is not a list");
    }
    if (pages == PageRule::kAll && field.type != FieldType::kList) {
      throw ConfigError(where(path, node) + ": field " + field.name +
                        " has pages: all but is not a list (all joins a list's items)");
    }
    field.pages =
        pages.value_or(field.type == FieldType::kList ? PageRule::kAll : PageRule::kFirst);
    if (field.instruction.empty())
      throw ConfigError(where(path, node) + ": field " + field.name + " has no instruction");
    if (field.max_tokens == 0) field.max_tokens = default_max_tokens(field.type);
    schema.fields.push_back(std::move(field));
  }
  if (schema.fields.empty()) throw ConfigError(path.string() + ": the field list is empty");
  schema.tables = read_tables(root["tables"], path);
  for (const TableSpec& t : schema.tables) {
    if (seen.count(t.name) > 0)
      throw ConfigError(path.string() + ": table " + t.name + " has a field's name");
  }
  return schema;
}

std::string build_prompt(const FieldSchema& schema, bool tables) {
  const bool with_tables = tables && !schema.tables.empty();
  const std::string first = schema.fields.front().name,
                    last = with_tables ? schema.tables.back().name : schema.fields.back().name;
  std::string prompt = "Extract key-value data from this business document image.\n\n";
  prompt += "OUTPUT RULES:\n";
  prompt += "- Output ONLY the fields below, nothing before or after them.\n";
  prompt += "- Start with " + first + " and stop after " + last + ".\n\n";
  prompt +=
      "REQUIRED OUTPUT FORMAT - EXACTLY " + std::to_string(schema.fields.size()) + " LINES:\n";
  for (const Field& f : schema.fields) prompt += f.name + ": [" + f.instruction + "]\n";
  if (with_tables) {
    prompt += "\nTHEN ONE LINE PER TABLE, for the document types named:\n";
    for (const TableSpec& t : schema.tables) {
      std::string types;
      for (const std::string& type : t.applies_to) types += (types.empty() ? "" : ", ") + type;
      prompt +=
          t.name + ": [" + t.instruction + "]" + (types.empty() ? "" : " (" + types + ")") + "\n";
    }
  }
  prompt += "\nFORMAT RULES:\n";
  prompt += "- Write every line exactly as KEY: value.\n";
  prompt += "- No markdown, no bullet points, no explanations.\n";
  prompt += "- Include every key, even when its value is absent.\n";
  prompt += "- Write N/A when a value is not in the document.\n";
  return prompt;
}

int auto_max_new_tokens(const FieldSchema& schema, TokenBudget budget) {
  const int n = static_cast<int>(schema.fields.size());
  return std::max(budget.floor, budget.per_field * n);
}

}  // namespace docsift::extract
