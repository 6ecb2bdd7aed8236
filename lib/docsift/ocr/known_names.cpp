#include "docsift/ocr/known_names.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include <utf8proc.h>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::ocr {
namespace {

constexpr std::size_t kMaxFileBytes = 4u << 20;
constexpr std::size_t kMaxLineBytes = 300;

// The fewest edits that turn `pattern` into some substring of `text` (semi-global Levenshtein:
// the pattern may start and end anywhere in the text), stopping early above `limit`.
int distance_within(std::string_view pattern, std::string_view text, int limit) {
  const std::size_t m = pattern.size();
  std::vector<int> prev(text.size() + 1, 0), cur(text.size() + 1);
  for (std::size_t i = 1; i <= m; ++i) {
    cur[0] = static_cast<int>(i);
    int row_best = cur[0];
    for (std::size_t j = 1; j <= text.size(); ++j) {
      const int sub = prev[j - 1] + (pattern[i - 1] == text[j - 1] ? 0 : 1);
      cur[j] = std::min({sub, prev[j] + 1, cur[j - 1] + 1});
      row_best = std::min(row_best, cur[j]);
    }
    if (row_best > limit)
      return limit + 1;  // every cell of a later row is at least this row's least
    std::swap(prev, cur);
  }
  return *std::min_element(prev.begin(), prev.end());
}

}  // namespace

std::string name_key(std::string_view text) {
  std::string key;
  key.reserve(text.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  auto left = static_cast<utf8proc_ssize_t>(text.size());
  while (left > 0) {
    utf8proc_int32_t c = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &c);
    if (n <= 0) {  // not UTF-8: the byte kept, compared as is
      key += static_cast<char>(*p);
      ++p, --left;
      continue;
    }
    if (c < 0x80) {
      if (std::isalnum(c)) key += static_cast<char>(std::toupper(c));
    } else {
      // A non-ASCII letter or digit is kept as its bytes; punctuation and symbols go, as ASCII's do
      // (a recognizer's full-width "（", a curly "’").
      const utf8proc_category_t category = utf8proc_category(c);
      if ((category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ||
          category == UTF8PROC_CATEGORY_ND) {
        key.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
      }
    }
    p += n, left -= n;
  }
  return key;
}

KnownNames KnownNames::load(const std::string& path) {
  if (path.empty()) return {};
  std::string text;
  try {
    text = read_text_file(path, kMaxFileBytes);
  } catch (const FileError& e) {
    throw ConfigError(std::string(e.what()) +
                      " (ocr.known_sellers: a text file, one seller's name per line)");
  }
  return from_text(text, path);
}

KnownNames KnownNames::from_text(std::string_view text, const std::string& source) {
  KnownNames out;
  std::size_t line_no = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    const auto where = [&] { return source + ":" + std::to_string(line_no) + ": "; };
    if (line.find('\0') != std::string_view::npos)
      throw ConfigError(where() +
                        "a NUL byte; the list of known sellers is text, one name per line");
    if (line.size() > kMaxLineBytes)
      throw ConfigError(where() + "a line over 300 bytes; one seller's name per line");
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    std::string key = name_key(line);
    if (key.empty())
      throw ConfigError(where() + "'" + std::string(line) + "' has no letter or digit");
    if (out.names_.size() == kMaxNames) {
      throw ConfigError(where() + "over " + std::to_string(kMaxNames) +
                        " names; shorten the list of known sellers");
    }
    out.names_.emplace_back(line);
    out.keys_.push_back(std::move(key));
  }
  return out;
}

std::optional<KnownNames::Match> KnownNames::find_in(std::string_view text) const {
  const std::string key = name_key(text);
  if (key.empty()) return std::nullopt;
  // The q-gram filter (q = 3), so that a long list costs little per line: a name within k edits
  // of some piece of the text has at least m - 2 - 3k of its m - 2 three-letter pieces in the text
  // (each edit spoils at most 3 of them), so a name with fewer is skipped before the full
  // comparison, which is exact.
  const auto gram = [](std::string_view s, std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8 |
           static_cast<unsigned char>(s[i + 2]);
  };
  std::unordered_set<std::uint32_t> grams;
  for (std::size_t i = 0; i + 3 <= key.size(); ++i) grams.insert(gram(key, i));
  int best = std::numeric_limits<int>::max();
  std::optional<std::size_t> found;
  bool tied = false;
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const std::string& name = keys_[i];
    int d = 0;
    if (name.size() < 5) {
      if (name != key)
        continue;  // a short name only as the whole text: three letters inside a line are chance
    } else {
      const int limit = static_cast<int>(name.size() / 8);
      if (key.size() + static_cast<std::size_t>(limit) < name.size())
        continue;  // too short to hold it
      if (const int need = static_cast<int>(name.size()) - 2 - 3 * limit; need > 0) {
        int have = 0;
        for (std::size_t j = 0; j + 3 <= name.size(); ++j)
          have += grams.count(gram(name, j)) ? 1 : 0;
        if (have < need) continue;
      }
      d = distance_within(name, key, std::min(limit, best));
      if (d > limit) continue;
    }
    if (d < best) {
      best = d, found = i, tied = false;
    } else if (d == best && keys_[*found] != name) {
      tied = true;  // two different names as near: the list cannot say which
    }
  }
  if (!found || tied) return std::nullopt;
  return Match{names_[*found], best};
}

}  // namespace docsift::ocr
