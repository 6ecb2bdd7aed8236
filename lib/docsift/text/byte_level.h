// GPT-2's byte-level alphabet: every byte 0..255 is shown as one printable Unicode character so
// that a BPE vocabulary of strings can cover arbitrary bytes. Bytes that are already printable
// (33..126, 161..172, 174..255) stand for themselves; the other 68 map to U+0100 onwards in
// byte order. Both tokenizer.json vocabularies used by docsift's models are written in it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace docsift::text {

// The character standing for `byte`.
char32_t byte_to_char(unsigned char byte);

// The byte a character stands for, or nullopt when `c` is not in the alphabet.
std::optional<unsigned char> char_to_byte(char32_t c);

// Appends the byte-level spelling of raw bytes (each byte becomes one character).
void append_byte_level(std::string& out, std::string_view raw);

// Converts a vocabulary string back to bytes. When any character is outside the alphabet the
// string's own UTF-8 bytes are returned, as the reference ByteLevel decoder does for added
// tokens such as "<|im_end|>" or tokens holding CJK text.
std::string byte_level_to_bytes(std::string_view token);

}  // namespace docsift::text
