#include "docsift/batch/corrections_csv.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <system_error>

#include "docsift/error.h"
#include "docsift/io/csv.h"
#include "docsift/strict_json.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

std::string trimmed(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// A file's bytes: InputMissingError when it is not there, InputUnreadableError when it cannot be
// read.
std::string read_text(const fs::path& path) {
  std::error_code ec;
  const bool there = fs::exists(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw InputUnreadableError(path.string() + ": cannot look at it: " + ec.message());
  }
  if (!there)
    throw InputMissingError(path.string() +
                            ": no such file; fill in the `corrected` column of review.csv");
  // A regular file only: a FIFO or a device would never end its read.
  if (!fs::is_regular_file(path, ec)) {
    throw ConfigError(path.string() + ": " +
                      (fs::is_directory(path, ec) ? "is a folder" : "is not a regular file") +
                      ", not a CSV");
  }
  // Capped before it is read: a review.csv holds a row per queued value, a few MB for 100,000
  // pages.
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{256} << 20;
  if (const std::uintmax_t size = fs::file_size(path, ec); !ec && size > kMaxBytes) {
    throw MalformedInputError(
        path.string() + ": " + std::to_string(size >> 20) +
        " MiB, over the 256 MiB a corrections CSV may have; give the queued rows only");
  }
  // Read through one opening, its type and size checked again on it (strict_json.h).
  try {
    return read_text_file(path.string(), kMaxBytes);
  } catch (const FileError& e) {
    throw InputUnreadableError(std::string(e.what()) + "; the corrections CSV could not be read");
  }
}

}  // namespace

std::vector<Row> read_rows(const fs::path& path, int& empty) {
  const std::string text = read_text(path);
  io::CsvTable table;
  try {
    table = io::parse_csv(text, path.string());
  } catch (const FileError& e) {
    throw MalformedInputError(e.what());
  }
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const std::string name = trimmed(table.header[i]);
    if (name.empty()) continue;
    if (!column.emplace(name, i).second) {
      throw MalformedInputError(path.string() + ": its header names the column " + name + " twice");
    }
  }
  for (const char* needed : {"image_file", "field", "value", "corrected"}) {
    if (!column.count(needed)) {
      std::string has;
      for (const auto& h : table.header) has += (has.empty() ? "" : ", ") + h;
      throw MalformedInputError(
          path.string() + ": its header has no " + needed + " column (it has: " + has +
          "); the columns needed are image_file, field, value, corrected, as review.csv has them");
    }
  }
  std::vector<Row> rows;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& cells = table.rows[r];
    Row row{table.lines[r], cells[column["image_file"]], cells[column["field"]],
            cells[column["value"]], trimmed(cells[column["corrected"]])};
    if (row.corrected.empty()) {
      ++empty;
      continue;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace docsift::batch
