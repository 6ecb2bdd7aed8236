// JSON parsing for files we do not trust (safetensors headers, config.json, shard indexes).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace docsift {

// Parses `text`, rejecting malformed JSON, duplicate keys in any object (nlohmann would keep
// the last one silently) and nesting deeper than `max_depth` (root = depth 0; deeper values
// are never built). Errors throw docsift::FileError prefixed with `label`.
nlohmann::json parse_json_strict(std::string_view text, const std::string& label, int max_depth);

// Reads a whole file, refusing one larger than `max_bytes` (FileError naming the path).
std::string read_text_file(const std::string& path, std::size_t max_bytes);

// Reads a whole file (at most `max_bytes`) and parses it as above.
nlohmann::json read_json_file(const std::string& path, int max_depth,
                              std::size_t max_bytes = 64u << 20);

}  // namespace docsift
