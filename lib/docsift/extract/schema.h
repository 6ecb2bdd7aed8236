// The field schema (configs/fields/*.yaml), the extraction prompt built from it, and the token
// budget that prompt needs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "docsift/extract/field.h"

namespace docsift::extract {

struct Field {
  std::string name;         // upper case, as the model must write it
  FieldType type = FieldType::kText;
  ItemType items = ItemType::kText;  // a list's items (`items:`); only list fields may say
  std::string instruction;  // what goes in the prompt's [brackets]
  bool required = false;
  // The document types (DOCUMENT_TYPE values) the field belongs to, `applies_to:`; empty: every
  // type. The docsift scoring rules score a document only on its type's fields (docs/eval.md).
  std::vector<std::string> applies_to;
  // Whether the field belongs to `document_type` (compared ignoring case and surrounding spaces).
  bool applies(std::string_view document_type) const;
};

struct FieldSchema {
  std::string source;  // the file it came from
  std::vector<Field> fields;
  std::vector<std::string> names() const;
  const Field* find(std::string_view name) const;
};

// The default schema, configs/fields/business-documents.yaml, compiled into the binary so that
// docsift runs from any folder (a cron job starts in $HOME); extraction.fields names it as
// "builtin:business-documents".
constexpr std::string_view kBuiltinSchema = "builtin:business-documents";

// Reads a schema file, or the built-in one when `path` is kBuiltinSchema. Throws
// docsift::ConfigError with file:line for unknown keys, unknown types, duplicate or malformed
// names, and empty instructions.
FieldSchema load_field_schema(const std::filesystem::path& path);

// The reference's prompt: the task, the output rules, "REQUIRED OUTPUT FORMAT - EXACTLY N
// LINES:", one `NAME: [instruction]` line per field, and the format rules.
std::string build_prompt(const FieldSchema& schema);

enum class ModelFamily { kInternVL, kLlama };

// max_new_tokens "auto": max(base, fields × per field); InternVL3 1000 / 50, Llama 600 / 30, the
// reference's values, which leave room for every line plus the chatter models add.
int auto_max_new_tokens(const FieldSchema& schema, ModelFamily family);

}  // namespace docsift::extract
