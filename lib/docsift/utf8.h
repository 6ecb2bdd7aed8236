// UTF-8 validation, code-point iteration and lossy conversion. Inputs are byte strings docsift did
// not write (user text, file names, token bytes produced mid-character by BPE), so every function
// here is total: no input can make it read out of bounds. In base so that any layer (the report's
// escaping, the tokenizer, the OCR text) checks UTF-8 by the one rule; text/utf8.h adds the Unicode
// properties the tokenizer's patterns need.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace docsift {

inline constexpr std::size_t kNoError = std::string_view::npos;
inline constexpr char32_t kReplacementChar = 0xFFFD;

// Byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlongs,
// surrogates and code points above U+10FFFF are ill-formed), or kNoError when all of `s` is valid.
std::size_t find_invalid_utf8(std::string_view s);

// Decodes the code point starting at `pos` in valid UTF-8 and advances `pos` past it.
char32_t next_code_point(std::string_view valid_utf8, std::size_t& pos);

// Appends `c` encoded as UTF-8 (c must be a Unicode scalar value).
void append_utf8(std::string& out, char32_t c);

// Appends `bytes`, replacing each maximal ill-formed subpart with U+FFFD. This is the
// "substitution of maximal subparts" practice of the Unicode standard (§3.9), which Rust's
// String::from_utf8_lossy follows, so decoded text matches the reference tokenizer byte for byte.
void append_utf8_lossy(std::string& out, std::string_view bytes);

// Number of trailing bytes of `bytes` that form the start of a sequence that is still valid
// but incomplete (0 to 3). A streaming decoder holds these back until the next token arrives.
std::size_t incomplete_utf8_tail(std::string_view bytes);

}  // namespace docsift
