#include "docsift/io/csv.h"

#include <fstream>
#include <iterator>

#include "docsift/error.h"

namespace docsift::io {

CsvTable parse_csv(std::string_view text, const std::string& label) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::vector<std::string>> records;
  std::vector<std::size_t> starts;  // the line each record starts on
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, after_quote = false, field_started = false;
  std::size_t line = 1, record_line = 1;
  const auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    after_quote = false;
    field_started = false;
  };
  const auto end_record = [&] {
    end_field();
    const bool blank = record.size() == 1 && record[0].empty();
    if (!blank) {
      records.push_back(std::move(record));
      starts.push_back(record_line);
    }
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
          after_quote = true;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      ++line;
      record_line = line;
    } else if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
    } else if (after_quote) {
      throw FileError(label + ":" + std::to_string(line) + ": text after a closing quote");
    } else {
      field.push_back(c);
      field_started = true;
    }
  }
  if (quoted)
    throw FileError(label + ":" + std::to_string(record_line) + ": a quoted field is never closed");
  if (!field.empty() || !record.empty() || after_quote) end_record();
  if (records.empty()) throw FileError(label + ": empty CSV (expected a header row)");
  CsvTable table;
  table.header = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header.size()) {
      throw FileError(label + ": row " + std::to_string(r + 1) + " has " +
                      std::to_string(records[r].size()) + " fields, the header has " +
                      std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(records[r]));
    table.lines.push_back(starts[r]);
  }
  return table;
}

CsvTable read_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string() + ": cannot open for reading");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_csv(text, path.string());
}

std::string csv_field(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace docsift::io
