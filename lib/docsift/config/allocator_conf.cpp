#include "docsift/config/allocator_conf.h"

#include <charconv>
#include <set>

#include "docsift/error.h"

namespace docsift::config {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, long long& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parse_double(std::string_view s, double& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

[[noreturn]] void bad(const std::string& key, std::string_view value, const std::string& want) {
  throw ConfigError("allocator option " + key + ":" + std::string(value) + " is invalid: " + want);
}

// Keys every LibTorch from 2.4 on understands.
void check_option(const std::string& key, std::string_view value) {
  long long n = 0;
  double x = 0;
  if (key == "max_split_size_mb") {
    // LibTorch refuses sizes at or below its 20 MB "large buffer" size.
    if (!parse_int(value, n) || n <= 20) bad(key, value, "expected an integer number of MB > 20");
  } else if (key == "roundup_power2_divisions") {
    if (value.starts_with('[') && value.ends_with(']')) return;  // per-size-interval form
    if (!parse_int(value, n) || n < 1 || (n & (n - 1)) != 0) {
      bad(key, value, "expected a power of two, or the [size:divisions,...] form");
    }
  } else if (key == "garbage_collection_threshold") {
    if (!parse_double(value, x) || x <= 0.0 || x >= 1.0) {
      bad(key, value, "expected a fraction between 0 and 1 (exclusive)");
    }
  } else if (key == "expandable_segments" || key == "release_lock_on_cudamalloc" ||
             key == "pinned_use_cuda_host_register") {
    if (value != "True" && value != "False") bad(key, value, "expected True or False (so spelled)");
  } else if (key == "pinned_num_register_threads") {
    if (!parse_int(value, n) || n < 1 || n > 128 || (n & (n - 1)) != 0) {
      bad(key, value, "expected a power of two from 1 to 128");
    }
  } else if (key == "backend") {
    throw ConfigError(
        "allocator option backend cannot be set from a config: LibTorch reads it when its CUDA "
        "library loads, before docsift starts; export PYTORCH_CUDA_ALLOC_CONF=backend:" +
        std::string(value) + " in the environment instead");
  } else {
    throw ConfigError(
        "unknown allocator option '" + key +
        "' (known: max_split_size_mb, roundup_power2_divisions, garbage_collection_threshold, "
        "expandable_segments, release_lock_on_cudamalloc, pinned_use_cuda_host_register, "
        "pinned_num_register_threads)");
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_allocator_conf(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  text = trim(text);
  if (text.empty()) return out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    // Split on commas that are not inside a [...] list.
    std::size_t end = pos;
    int depth = 0;
    while (end < text.size() && (text[end] != ',' || depth > 0)) {
      if (text[end] == '[') ++depth;
      if (text[end] == ']') --depth;
      ++end;
    }
    const std::string_view item = trim(text.substr(pos, end - pos));
    const auto colon = item.find(':');
    if (item.empty() || colon == std::string_view::npos || colon == 0 || colon + 1 == item.size()) {
      throw ConfigError("allocator setting '" + std::string(item) +
                        "' is not of the form key:value (example: max_split_size_mb:64)");
    }
    std::string key(trim(item.substr(0, colon)));
    const std::string_view value = trim(item.substr(colon + 1));
    check_option(key, value);
    if (!seen.insert(key).second) throw ConfigError("allocator option " + key + " is given twice");
    out.emplace_back(std::move(key), std::string(value));
    pos = end + 1;
  }
  return out;
}

}  // namespace docsift::config
