#include "docsift/extract/addresses.h"

#include <libpsl.h>
#include <utf8proc.h>

#include <algorithm>
#include <string>

#include "docsift/edit_distance.h"
#include "docsift/utf8.h"

namespace docsift::extract {
namespace {

// The list compiled into libpsl: no file is read, so the answer is the same on every machine with
// the same library. Null in a libpsl built without its list.
const psl_ctx_t* suffix_list() {
  static const psl_ctx_t* const list = psl_builtin();
  return list;
}

// Whether `name` ("com.au", "au") is a public suffix of the list, not by its "*" rule; false
// without a list.
bool public_suffix(const std::string& name) {
  return suffix_list() != nullptr &&
         psl_is_public_suffix2(suffix_list(), name.c_str(), PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE) !=
             0;
}

// Whether a host ends in a second-level label one letter off a generic one under its country's
// code, where the generic one is a public suffix and it is not: "example.coim.au",
// "example.c0m.au" (a misread com.au). A name registered under the code itself ("con.au",
// "www.con.au") is no such label: the host needs a name before it other than "www".
bool misread_second_level(const std::string& host) {
  const std::size_t last = host.rfind('.');
  if (last == std::string::npos || last == 0) return false;
  const std::size_t second = host.rfind('.', last - 1);
  if (second == std::string::npos) return false;  // two labels: a name under the code
  const std::size_t third = host.rfind('.', second - 1);
  const std::string name = host.substr(third == std::string::npos ? 0 : third + 1,
                                       second - (third == std::string::npos ? 0 : third + 1));
  if (second == 0 || name == "www") return false;
  const std::string sld = host.substr(second + 1, last - second - 1), tld = host.substr(last);
  if (public_suffix(sld + tld)) return false;
  for (const char* generic : {"com", "net", "org", "edu", "gov"}) {
    if (edit_distance(sld, generic, 1) == 1 && public_suffix(generic + tld)) return true;
  }
  return false;
}

// Whether the label under the host's top-level domain ends in a generic label whose stop was lost
// ("harbourcom" under .au, where com.au is a public suffix and harbourcom.au none).
bool lost_stop(const std::string& host) {
  const std::size_t last = host.rfind('.');
  if (last == std::string::npos || last == 0) return false;
  const std::size_t before = host.rfind('.', last - 1);
  const std::size_t from = before == std::string::npos ? 0 : before + 1;
  const std::string name = host.substr(from, last - from), tld = host.substr(last);
  if (public_suffix(name + tld)) return false;
  for (const std::string generic : {"com", "net", "org", "edu", "gov"}) {
    if (name.size() > generic.size() + 1 && name.ends_with(generic) && public_suffix(generic + tld))
      return true;
  }
  return false;
}

// Whether a label has a 0 or a 1 between two letters, in a run of four letters or more with it.
bool digit_for_letter(std::string_view label) {
  const auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
  for (std::size_t i = 1; i + 1 < label.size(); ++i) {
    if ((label[i] != '0' && label[i] != '1') || !letter(label[i - 1]) || !letter(label[i + 1]))
      continue;
    std::size_t begin = i, end = i + 1;
    while (begin > 0 && letter(label[begin - 1])) --begin;
    while (end < label.size() && letter(label[end])) ++end;
    if (end - begin >= 5) return true;  // the digit and at least four letters
  }
  return false;
}

// ASCII letters, digits and hyphens, and any byte of a UTF-8 sequence (a domain written in its
// own script: "bücher.de", "пример.рф").
bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         static_cast<unsigned char>(c) >= 0x80;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Dotted labels of letters, digits and hyphens, the last a top-level domain; at least two labels.
bool host_well_formed(std::string_view host_as_written) {
  const std::string host = lowered(host_as_written);
  std::size_t begin = 0, labels = 0;
  while (true) {
    const std::size_t dot = host.find('.', begin);
    const std::string_view label = std::string_view(host).substr(
        begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    for (const char c : label) {
      if (!host_char(c)) return false;
    }
    if (digit_for_letter(label)) return false;
    ++labels;
    if (dot == std::string::npos)
      return labels >= 2 && is_top_level_domain(label) && !misread_second_level(host) &&
             !lost_stop(host);
    begin = dot + 1;
  }
}

}  // namespace

bool is_top_level_domain(std::string_view label) {
  if (label.empty() || label.find('.') != std::string_view::npos) return false;
  // A libpsl built without its list: nothing to check against.
  return suffix_list() == nullptr || public_suffix(std::string(label));
}

bool website_well_formed(std::string_view value) {
  std::string_view host = value;
  if (const std::size_t scheme = host.find("://"); scheme != std::string_view::npos)
    host.remove_prefix(scheme + 3);
  host = host.substr(0, host.find_first_of("/:?#"));
  return host_well_formed(host);
}

bool email_well_formed(std::string_view value) {
  const std::size_t at = value.find('@');
  if (at == std::string_view::npos || at == 0 || value.find('@', at + 1) != std::string_view::npos)
    return false;
  if (value.substr(0, at).find(' ') != std::string_view::npos) return false;
  return host_well_formed(value.substr(at + 1));
}

bool postal_address_well_formed(std::string_view value) {
  if (find_invalid_utf8(value) != kNoError) return false;
  for (std::size_t at = 0; at < value.size();) {
    const char32_t c = next_code_point(value, at);
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
      case UTF8PROC_CATEGORY_SC:
      case UTF8PROC_CATEGORY_SM:
      case UTF8PROC_CATEGORY_SK:
      case UTF8PROC_CATEGORY_SO:
        return false;
      default:
        break;
    }
    constexpr std::u32string_view kOdd = U"?!%*_\\[]{}\u00a7\u00b6";
    if (kOdd.find(c) != std::u32string_view::npos) return false;
  }
  return true;
}

}  // namespace docsift::extract
