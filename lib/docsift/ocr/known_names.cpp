#include "docsift/ocr/known_names.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include <utf8proc.h>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::ocr {
namespace {

constexpr std::size_t kMaxFileBytes = 4u << 20;

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

// The nearest of a list's entries by edits, as they are offered: entry i of `keys` at `d` edits.
// Two different keys equally near are no match (the list cannot say which); the same key twice
// (a seller listed once per branch) is one. With `longer_wins`, of two keys equally near where one
// goes on from the other (a head office's address and a branch's after it), the longer is the one.
class Nearest {
 public:
  explicit Nearest(const std::vector<std::string>& keys, bool longer_wins = false)
      : keys_(keys), longer_wins_(longer_wins) {}
  int best() const { return best_; }
  std::optional<std::size_t> found() const {
    return found_ == kNone ? std::nullopt : std::optional(found_);
  }
  void offer(std::size_t i, int d) {
    if (d < best_) {
      best_ = d, found_ = i, tied_ = false;
    } else if (d == best_ && found_ != kNone && keys_[found_] != keys_[i]) {
      const std::string &held = keys_[found_], &key = keys_[i];
      if (longer_wins_ && held.starts_with(key)) return;  // what is held goes on from it
      if (longer_wins_ && key.starts_with(held) && !tied_) {
        found_ = i;
        return;
      }
      tied_ = true;
    }
  }
  std::optional<KnownNames::Match> match(const std::vector<std::string>& spelled) const {
    if (found_ == kNone || tied_) return std::nullopt;
    return KnownNames::Match{spelled[found_], best_};
  }

 private:
  const std::vector<std::string>& keys_;
  bool longer_wins_;
  int best_ = std::numeric_limits<int>::max();
  // The entry held, kNone before any is offered (a plain index: GCC 12 warns of an optional's
  // payload read uninitialized here where none can be).
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t found_ = kNone;
  bool tied_ = false;
};

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

std::string words_key(std::string_view text) {
  std::string key;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const auto c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (c >= 0x80 || std::isalnum(c)) continue;
    const std::string word = name_key(text.substr(start, i - start));
    if (!word.empty()) key += (key.empty() ? "" : " ") + word;
    start = i + 1;
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
    // "NAME<TAB>ADDRESS": the address is the rest of the line after the name's first tab.
    std::string_view address;
    if (const std::size_t tab = line.find('\t'); tab != std::string_view::npos) {
      address = line.substr(tab + 1);
      line = line.substr(0, tab);
      while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
      while (!address.empty() && (address.front() == ' ' || address.front() == '\t'))
        address.remove_prefix(1);
    }
    std::string key = name_key(line);
    if (key.empty())
      throw ConfigError(where() + "'" + std::string(line) + "' has no letter or digit");
    std::string address_key = name_key(address);
    if (!address.empty() && address_key.empty())
      throw ConfigError(where() + "the address '" + std::string(address) +
                        "' has no letter or digit");
    if (out.names_.size() == kMaxNames) {
      throw ConfigError(where() + "over " + std::to_string(kMaxNames) +
                        " names; shorten the list of known sellers");
    }
    out.names_.emplace_back(line);
    out.keys_.push_back(std::move(key));
    out.addresses_.emplace_back(address);
    out.address_keys_.push_back(std::move(address_key));
    out.addressed_ = out.addressed_ || !address.empty();
  }
  // An address another of its seller's lines goes on from (a head office listed alone and with a
  // branch after it, as labels of one chain's receipts give it): found nearest, it is no match, as
  // the page may print a branch the list lacks (find_address). In (seller, address) order, the
  // addresses that go on from one sort right after it.
  std::vector<std::size_t> order(out.keys_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(out.keys_[a], out.address_keys_[a]) <
           std::tie(out.keys_[b], out.address_keys_[b]);
  });
  out.extended_.assign(order.size(), false);
  for (std::size_t k = 0; k + 1 < order.size(); ++k) {
    const std::size_t a = order[k];
    for (std::size_t m = k + 1; m < order.size() && out.keys_[order[m]] == out.keys_[a]; ++m) {
      const std::string& next = out.address_keys_[order[m]];
      if (next == out.address_keys_[a]) continue;  // the same line twice
      out.extended_[a] = next.starts_with(out.address_keys_[a]);
      break;
    }
  }
  return out;
}

std::optional<KnownNames::Match> KnownNames::find_in(std::string_view text, bool* tied) const {
  if (tied) *tied = false;
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
  std::vector<std::pair<std::size_t, int>> found;  // (name, edits) of each name the text holds
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const std::string& name = keys_[i];
    int d = 0;
    if (name.size() < 5) {
      if (name != key)
        continue;  // a short name only as the whole text: three letters inside a line are chance
    } else {
      // A name that is under half the text is a part of another's ("SDN BHD" of "EDEN IMPRESSION
      // SDN BHD", a list made from values read: `docsift review sellers`), not the text's name.
      if (name.size() * 2 < key.size()) continue;
      const int limit = edits_allowed(name.size());
      if (key.size() + static_cast<std::size_t>(limit) < name.size())
        continue;  // too short to hold it
      if (const int need = static_cast<int>(name.size()) - 2 - 3 * limit; need > 0) {
        int have = 0;
        for (std::size_t j = 0; j + 3 <= name.size(); ++j)
          have += grams.count(gram(name, j)) ? 1 : 0;
        if (have < need) continue;
      }
      d = distance_within(name, key, limit);
      if (d > limit) continue;
    }
    found.emplace_back(i, d);
  }
  // A name inside another that the text holds too is that one's part, and yields to it when the
  // longer explains more of the text, an edit costing the 8 letters it is allowed per ("EDEN
  // IMPRESION SDN BHD" is EDEN IMPRESSION SDN BHD's, not SDN BHD's; "GARDENIA BAKERIES (KL) SDN
  // BHD" is not "GA R DENIA BAK ERI ES (KL) SDN BHD X)"'s, a longer name only by a misread).
  const auto explained = [&](std::size_t i, int d) {
    return static_cast<long>(keys_[i].size()) - 8L * d;
  };
  Nearest nearest(keys_);
  for (const auto& [i, d] : found) {
    const bool part = std::any_of(found.begin(), found.end(), [&, i = i, d = d](const auto& o) {
      const std::string& longer = keys_[o.first];
      return longer.size() > keys_[i].size() && longer.find(keys_[i]) != std::string::npos &&
             explained(o.first, o.second) > explained(i, d);
    });
    if (!part) nearest.offer(i, d);
  }
  if (tied) *tied = nearest.found() && !nearest.match(names_);
  return nearest.match(names_);
}

std::optional<KnownNames::Match> KnownNames::find_address(const std::string& name,
                                                          std::string_view value,
                                                          std::string_view page) const {
  const std::string seller = name_key(name), read = name_key(value), printed = name_key(page);
  if (seller.empty() || read.empty() || printed.empty()) return std::nullopt;
  const int read_limit = edits_allowed(read.size());
  Nearest nearest(address_keys_, true);
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const std::string& address = address_keys_[i];
    if (keys_[i] != seller || address.empty()) continue;
    // The value read lies inside the listed address (the address, or a line of it missed), so a
    // head office listed without the branch the page goes on to print is no match.
    if (distance_within(read, address, read_limit) > read_limit) continue;
    const int limit = edits_allowed(address.size());
    if (printed.size() + static_cast<std::size_t>(limit) < address.size()) continue;
    const int d = distance_within(address, printed, std::min(limit, nearest.best()));
    if (d <= limit) nearest.offer(i, d);
  }
  // A head office nearest, that a branch's line goes on from in the list: the page may print a
  // branch the list lacks (a branch's few letters are within an address's edits of another's).
  if (const auto at = nearest.found(); at && extended_[*at]) return std::nullopt;
  return nearest.match(addresses_);
}

}  // namespace docsift::ocr
