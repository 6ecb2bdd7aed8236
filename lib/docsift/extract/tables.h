// A document's tables as the model path asks for them (docs/decoding.md, "Tables"): the schema's
// `tables:` (a name the model writes as a key, the document types it applies to, its columns, an
// instruction and a token cap), and the one line of the answer that holds a table, a JSON array
// of objects, read into rows. The OCR engine reads tables from the words' boxes instead
// (ocr/table.h); both give line_items with the same columns.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace YAML {
class Node;
}

namespace docsift::extract {

// The columns a row may have, as line_items.csv names them.
inline constexpr std::string_view kRowColumns[] = {
    "description", "quantity", "unit_price", "amount", "date", "debit", "credit", "balance"};

struct TableSpec {
  std::string name;                     // upper case, as the model writes the key: LINE_ITEMS
  std::vector<std::string> applies_to;  // document types; empty: every type
  std::vector<std::string> columns;     // a subset of kRowColumns, description first
  std::string instruction;              // what the prompt asks for
  int max_tokens = 512;                 // the line's cap under keys decoding
  bool applies(std::string_view document_type) const;
};

// The schema's `tables:` list (absent: none). Throws docsift::ConfigError with file:line for an
// unknown key or column, a bad name, a missing instruction, a cap out of range.
std::vector<TableSpec> read_tables(const YAML::Node& tables, const std::filesystem::path& path);

// One row: column → the cell as printed.
using TableRow = std::map<std::string, std::string>;

struct ParsedTable {
  bool found = false;  // the answer has the table's line
  std::vector<TableRow> rows;
  std::string problem;  // why the line is not a table (empty when it is, or is absent)
};

// The table's line of `answer` ("LINE_ITEMS: [...]", the first line that starts with the key),
// read as a JSON array of objects: each object's keys among the table's columns, each value a
// string or a number (written as JSON writes it), null or "" or "N/A" for an empty cell; an
// object with no cell is dropped. "N/A" or an empty value is no rows. At most 1,000 rows of
// 64 KiB; anything else is a `problem`, and no rows.
ParsedTable parse_table(std::string_view answer, const TableSpec& table);

}  // namespace docsift::extract
