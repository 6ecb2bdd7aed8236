// The Unicode properties the tokenizer's patterns need (utf8proc), beside UTF-8 validation and
// conversion, which are base's (docsift/utf8.h) and named here too for the text module's code.
#pragma once

#include "docsift/utf8.h"

namespace docsift::text {

using docsift::append_utf8;
using docsift::append_utf8_lossy;
using docsift::find_invalid_utf8;
using docsift::incomplete_utf8_tail;
using docsift::kNoError;
using docsift::kReplacementChar;
using docsift::next_code_point;

// Unicode White_Space property (what Rust's char::is_whitespace and regex `\s` use).
bool is_unicode_whitespace(char32_t c);

// Rust regex `\w`: letters, marks, decimal digits, connector punctuation, join controls.
bool is_word_char(char32_t c);

}  // namespace docsift::text
