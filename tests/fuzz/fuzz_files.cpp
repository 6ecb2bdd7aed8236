// libFuzzer target: files docsift reads whole from a path a user gives: an OCR rules file
// (ocr.rules), a field schema (extraction.fields, its tables: included) and a CSV (ground truth,
// predictions); and the same bytes as a model's answer, its table lines read into rows
// (extract/tables.h). Problems must be docsift errors naming the file, or a table's `problem`,
// never a crash or a library exception (yaml-cpp's and nlohmann's included).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "docsift/error.h"
#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"
#include "docsift/extract/tables.h"
#include "docsift/io/csv.h"
#include "docsift/ocr/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The bytes as a file with a path, in memory.
  const int fd = ::memfd_create("docsift-fuzz", 0);
  if (fd < 0) return 0;
  if (::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    (void)docsift::ocr::load_rules(path);
  } catch (const docsift::Error&) {
  }
  try {
    (void)docsift::io::read_csv(path);
  } catch (const docsift::Error&) {
  }
  try {
    (void)docsift::extract::load_field_schema(path);
  } catch (const docsift::Error&) {
  }
  static const docsift::extract::FieldSchema schema =
      docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  const std::string_view answer(reinterpret_cast<const char*>(data), size);
  (void)docsift::extract::parse_response(answer, schema.names());
  for (const auto& table : schema.tables) {
    const auto parsed = docsift::extract::parse_table(answer, table);
    if (!parsed.problem.empty() && !parsed.rows.empty()) __builtin_trap();  // a problem is no rows
  }
  ::close(fd);
  return 0;
}
