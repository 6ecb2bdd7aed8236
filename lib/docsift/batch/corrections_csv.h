// The corrections CSV that `docsift review apply` reads (review.csv with its corrected column
// filled): its filled rows, found by the columns' names. Private to corrections.cpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace docsift::batch {

// One filled row of the CSV: where it is, and what it says.
struct Row {
  std::size_t line = 0;
  std::string page, field, value, corrected;
};

// The filled rows of the corrections CSV, its columns found by name; `empty` counts the rows left
// blank. Throws InputMissingError, InputUnreadableError or MalformedInputError naming the file.
std::vector<Row> read_rows(const std::filesystem::path& path, int& empty);

}  // namespace docsift::batch
