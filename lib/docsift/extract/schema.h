// The field schema (configs/fields/*.yaml), the extraction prompt built from it, and the token
// budget that prompt needs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "docsift/extract/field.h"
#include "docsift/extract/tables.h"

namespace docsift::extract {

struct Field {
  std::string name;  // upper case, as the model must write it
  FieldType type = FieldType::kText;
  ItemType items = ItemType::kText;  // a list's items (`items:`); only list fields may say
  // Which pages of a document of several give the value (`pages:`): every page's for a list, else
  // the first page's unless the schema says `last`; `all` is for lists only.
  PageRule pages = PageRule::kFirst;
  std::string instruction;  // what goes in the prompt's [brackets]
  bool required = false;
  // The value's token cap under `extraction.decoding: keys` (`max_tokens:`; when absent,
  // default_max_tokens(type)): generation of this field's value stops there.
  int max_tokens = 0;
  // The document types (DOCUMENT_TYPE values) the field belongs to, `applies_to:`; empty: every
  // type. The docsift scoring rules score a document only on its type's fields (docs/eval.md).
  std::vector<std::string> applies_to;
  // Whether the field belongs to `document_type` (compared ignoring case and surrounding spaces).
  bool applies(std::string_view document_type) const;
  // Whether a page of `document_type` must have it: `required`, and a type it applies to (the
  // review queue's "missing").
  bool required_on(std::string_view document_type) const {
    return required && applies(document_type);
  }
};

// max_tokens when a field does not say: 32 for text, 24 for an id, 16 for an amount or a date,
// 128 for a list (a page's line items). Qwen2 writes one token per digit (Llama 3 up to three),
// so " 12/03/2024" is 11 tokens and a "DD/MM/YYYY to DD/MM/YYYY" period 23
// (bench/decoding/README.md).
int default_max_tokens(FieldType type);

// The most tokens one field's value may take.
inline constexpr int kMaxFieldTokens = 4096;

struct FieldSchema {
  std::string source;  // the file it came from
  std::vector<Field> fields;
  // The document's tables the model may be asked for (`tables:`; extraction.tables), after the
  // fields: each one line of JSON rows (tables.h).
  std::vector<TableSpec> tables;
  std::vector<std::string> names() const;
  const Field* find(std::string_view name) const;
  // The one check of a name a setting gives for a field (review.fields, gate.min_field, eval's
  // --threshold and --min-field, from a file or the command line alike): throws
  // docsift::ConfigError "`setting`: 'NAME' is not a field of SOURCE (...)" when it is none.
  void require(std::string_view name, const std::string& setting) const;
  // The document types the fields route by: every `applies_to` name, in first-seen order, spelt
  // as first written. Empty when no field names one.
  std::vector<std::string> document_types() const;
};

// The field whose value names the document type (DOCUMENT_TYPE), which `keys` decoding asks
// first and constrains to document_types().
inline constexpr std::string_view kDocumentTypeField = "DOCUMENT_TYPE";

// The default schema, configs/fields/business-documents.yaml, compiled into the binary so that
// docsift runs from any folder (a cron job starts in $HOME); extraction.fields names it as
// "builtin:business-documents".
constexpr std::string_view kBuiltinSchema = "builtin:business-documents";

// Reads a schema file, or the built-in one when `path` is kBuiltinSchema. Throws
// docsift::ConfigError with file:line for unknown keys, unknown types, duplicate or malformed
// names, and empty instructions.
FieldSchema load_field_schema(const std::filesystem::path& path);

// The reference's prompt: the task, the output rules, "REQUIRED OUTPUT FORMAT - EXACTLY N
// LINES:", one `NAME: [instruction]` line per field, and the format rules. With `tables`, one
// more line per table after the fields, for the document types it names.
std::string build_prompt(const FieldSchema& schema, bool tables = false);

// max_new_tokens "auto" for one model family: max(floor, fields × per_field). Each family declares
// its own (family/<name>/): the reference's InternVL3 1000 / 50 and Llama 600 / 30 leave room for
// every line plus the chatter models add.
struct TokenBudget {
  int floor = 0;
  int per_field = 0;
};
int auto_max_new_tokens(const FieldSchema& schema, TokenBudget budget);

}  // namespace docsift::extract
