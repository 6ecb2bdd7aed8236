// Turns a model's free-text answer into field values. Models wrap the requested `KEY: value`
// lines in chatter ("Here is the extracted data:"), markdown (**bold**, bullets, headings, code
// fences) and sometimes repeat a key; the parser keeps what the reference keeps:
//   - every field starts as N/A;
//   - a line is `KEY: value`, split at its first ':' (values may contain colons: times, URLs);
//   - keys are matched case-insensitively, with spaces or hyphens read as '_';
//   - the first value that is not missing wins; unknown keys and other lines are ignored.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::extract {

// Where a value parse_response kept lies in the response: bytes [begin, end), and `line_end`, the
// index of the newline that ends its line (the response's size on the last line). Free decoding
// maps it back to the tokens that wrote it (generate/confidence.h).
struct ValueSpan {
  std::size_t begin = 0, end = 0, line_end = 0;
};

// Field name → value (N/A when the response has no usable value) for every name in `fields`.
// `spans`, when given: the span of each value kept that is not N/A.
std::map<std::string, std::string> parse_response(
    std::string_view response, const std::vector<std::string>& fields,
    std::map<std::string, ValueSpan>* spans = nullptr);

}  // namespace docsift::extract
