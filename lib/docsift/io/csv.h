// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, quote,
// CR or LF, quotes doubled inside quotes; CRLF or LF line ends; a header row.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::io {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as the header
  std::vector<std::size_t>
      lines;  // the line each row starts on, from 1 (the header's is 1 or more)
};

// Parses `text`; `label` names it in errors (docsift::FileError with the line number) for an
// unterminated quote, text after a closing quote, or a row whose field count differs from the
// header's. A UTF-8 BOM is skipped; blank lines are ignored.
CsvTable parse_csv(std::string_view text, const std::string& label);
CsvTable read_csv(const std::filesystem::path& path);

// One field, quoted only when it must be.
std::string csv_field(std::string_view value);

}  // namespace docsift::io
