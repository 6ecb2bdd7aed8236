// The value parsers that need no repairs (ABN, BSB, account, phone, email, website, address), the
// text helpers (lowercase, casefold, clean_text) and the helpers shared with values_dates.cpp and
// values_amounts.cpp (values_internal.h).
#include "docsift/ocr/values.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "docsift/abn.h"
#include "docsift/edit_distance.h"
#include "docsift/ocr/values_internal.h"

namespace docsift::ocr {
namespace detail {

std::string digits_of(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (is_digit(c)) out += c;
  }
  return out;
}

std::string ocr_digits(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  while (i < out.size()) {
    while (i < out.size() && out[i] == ' ') ++i;
    std::size_t j = i;
    // A currency mark before the number ("RMO.00") is not part of it.
    std::size_t first = i;
    while (first < out.size() && out[first] != ' ' && !is_digit(out[first])) ++first;
    while (first > i && (out[first - 1] == 'O' || out[first - 1] == 'o' || out[first - 1] == 'l' ||
                         out[first - 1] == 'I' || out[first - 1] == '.' || out[first - 1] == ',')) {
      --first;
    }
    if (first < out.size() && out[first] != ' ') i = first;
    j = i;
    int digits = 0, lookalikes = 0, letters = 0, bars = 0;
    for (; j < out.size() && out[j] != ' '; ++j) {
      const char c = out[j];
      digits += is_digit(c) ? 1 : 0;
      lookalikes += (c == 'O' || c == 'o' || c == 'l' || c == 'I') ? 1 : 0;
      letters += is_letter(c) ? 1 : 0;
      bars += c == '|' && j + 1 < out.size() && is_digit(out[j + 1]) ? 1 : 0;  // "|7-06-2018"
    }
    if (digits >= 2 && lookalikes + bars > 0 && lookalikes == letters && lookalikes + bars <= 2) {
      for (std::size_t k = i; k < j; ++k) {
        if (out[k] == 'O' || out[k] == 'o') out[k] = '0';
        if (out[k] == 'l' || out[k] == 'I' || (out[k] == '|' && k + 1 < j && is_digit(out[k + 1])))
          out[k] = '1';
      }
    }
    i = j;
  }
  return out;
}

}  // namespace detail

using detail::digits_of;

std::optional<std::string> parse_abn(std::string_view text) {
  // Digits in groups separated by single spaces, dots, dashes or ':' (OCR reads a space so).
  static const std::regex kGroups(R"(\d(?:[ .:\-]?\d){10})");
  const std::string s(text);
  for (std::sregex_iterator it(s.begin(), s.end(), kGroups), end; it != end; ++it) {
    const std::string d = digits_of(it->str());
    if (d.size() == 11 && abn_checksum_ok(d)) {
      return d.substr(0, 2) + " " + d.substr(2, 3) + " " + d.substr(5, 3) + " " + d.substr(8, 3);
    }
  }
  return std::nullopt;
}

std::optional<std::string> parse_bsb(std::string_view text) {
  // Three digits, a space or a dash, three digits; a stop for the space is a speck read
  // ("951.208").
  static const std::regex kBsb(R"((^|[^\d])(\d{3})[ \-.]?(\d{3})(?!\d))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kBsb)) return std::nullopt;
  return m[2].str() + " " + m[3].str();
}

std::optional<std::string> parse_account(std::string_view text) {
  static const std::regex kAccount(R"((^|[^\d])(\d(?:[ \-]?\d){5,9})(?![\d]))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kAccount)) return std::nullopt;
  return digits_of(m[2].str());
}

namespace {

// A host as printed from one OCR read with its stops spaced or misread ("example.com. au",
// "example.com,au", "example com au"): each run of stops, spaces and commas one stop. The patterns
// of parse_email and parse_website start it with a letter or digit.
std::string host_as_printed(std::string_view read) {
  std::string out;
  for (const char c : read) {
    if (c != '.' && c != ' ' && c != ',')
      out += c;
    else if (!out.empty() && out.back() != '.')
      out += '.';
  }
  return out;
}

}  // namespace

std::optional<std::string> parse_phone(std::string_view text) {
  static const std::regex kPhone(
      R"((\(0\d\)\s?\d{4}[\s.\-]?\d{4}|\+61\s?\d\s?\d{4}\s?\d{4}|0\d\s\d{4}\s\d{4}|04\d{2}\s?\d{3}\s?\d{3}|1[38]00\s?\d{3}\s?\d{3}))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kPhone)) return std::nullopt;
  // An area code's number spaced as Australian ones are written, whatever spaces OCR lost
  // ("(02) 95394956" → "(02) 9539 4956") or read as a stop or a hyphen ("(08) 2323.9217",
  // "(03) 6718-1934"): the pattern fixed its ten digits. The others stay as
  // printed: a mobile's shape is also a Malaysian landline's or a tax number's.
  const std::string printed = m[1].str();
  if (printed.front() == '(') {
    std::string d;
    for (const char c : printed)
      if (c >= '0' && c <= '9') d += c;
    return "(" + d.substr(0, 2) + ") " + d.substr(2, 4) + " " + d.substr(6);
  }
  return clean_text(printed);
}

std::optional<std::string> parse_email(std::string_view text) {
  static const std::regex kEmail(R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)");
  // An address alone on its line (after a label's colon, if any; a speck before it and after it)
  // that OCR read with a space after a stop, as it often does in italic or spaced type:
  // "liam. oconnor@example.com. au"; or with a stop misread as a comma, a slash or a space:
  // "mei,chen@", "liam/oconnor@", "aisha rahman@", "example.com,au", "example.com au". Only
  // there, and in the domain only before a two- or three-letter ending: in running text ("Email
  // us. help@x.com. Thanks") the stop ends a sentence.
  static const std::regex kSpaced(
      R"(^\s*(?:[^:@]*:\s*)?[^A-Za-z0-9\s@:]*([A-Za-z0-9._%+\-]+)(\. |,| |/)?([A-Za-z0-9._%+\-]*)@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+|(?:\. |,| )[a-z]{2,3})+)[\s\-.,:;|_~'"]*$)");
  if (text.find('@') == std::string_view::npos) return std::nullopt;  // most lines: no regex
  std::smatch m;
  const std::string s(text);
  // A word after the domain and a bare space that goes on the sentence ("help@x.com or") is no
  // ending of it.
  const auto sentence_goes_on = [](const std::string& domain) {
    const std::size_t space = domain.rfind(' ');
    if (space == std::string::npos || domain[space - 1] == '.' || domain[space - 1] == ',')
      return false;
    const std::string word = domain.substr(space + 1);
    return word == "or" || word == "to" || word == "at" || word == "on" || word == "in" ||
           word == "is" || word == "by" || word == "and" || word == "the" || word == "for";
  };
  if (std::regex_search(s, m, kSpaced) && !sentence_goes_on(m.str(4))) {
    std::string name = m.str(1), stop = m.str(2);
    const std::string rest = m.str(3);
    if (stop == " " && !name.empty() && name.back() == '.') name.pop_back(), stop = ". ";
    // A word before a space that is no part of a name: a label read without its colon ("Email
    // aisha@…") or a capitalised word; the address is what follows it.
    const bool label = stop == " " && (std::any_of(name.begin(), name.end(),
                                                   [](char c) { return c >= 'A' && c <= 'Z'; }) ||
                                       name == "email" || name == "e-mail" || name == "mail" ||
                                       name == "to" || name == "at" || name == "contact");
    if (label) name.clear();
    if (!stop.empty() && !rest.empty() && !label) name += '.';
    if (name.empty() && rest.empty()) return std::nullopt;
    return lowercase(name + rest + "@" + host_as_printed(m.str(4)));
  }
  if (!std::regex_search(s, m, kEmail)) return std::nullopt;
  return lowercase(m.str());
}

std::optional<std::string> parse_website(std::string_view text) {
  static const std::regex kWeb(
      R"(((?:https?://)?www\.[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+|https?://[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)(?:/\S*)?)",
      std::regex::icase);
  // A website that ends its line (after its label, if any) read with a space after its dots, as
  // OCR reads one whose pieces it took for words of their own: "www.kookaburra.com. au",
  // "www. redgum. com. au", and with a "w" lost ("ww. blue.com. au"). Only where the line ends
  // in a two- or three-letter ending: elsewhere a stop and a space may end a sentence.
  // Also a comma for a stop ("www.kookaburra.com,au"), and specks about it ("Web: © . www…, :"):
  // runs of specks parted by spaces, so that a line of specks is split one way only (a regex that
  // could split it many ways would take exponential time to fail on it).
  static const std::regex kSpaced(
      R"(^\s*(?:[A-Za-z\- ]*:?\s*)?[^A-Za-z0-9\s]*(?:\s+[^A-Za-z0-9\s]+)*\s*(w{2,3})\. ?([A-Za-z0-9\-]+(?:(?:\. ?|,)[A-Za-z0-9\-]+)*(?:\. ?|,)[a-z]{2,3})[\s.,:;|_~'"\-]*$)",
      std::regex::icase);
  const std::string s(text), lowered = lowercase(text);
  // Most lines: no regex.
  if (lowered.find("ww") == std::string::npos && lowered.find("http") == std::string::npos)
    return std::nullopt;
  std::smatch m;
  if (std::regex_search(s, m, kSpaced)) {
    return "www." + lowercase(host_as_printed(m.str(2)));
  }
  if (!std::regex_search(s, m, kWeb)) return std::nullopt;
  return lowercase(m.str());
}

bool looks_like_address(std::string_view text, const Lexicon& lexicon) {
  static const std::regex kStreet(
      R"(^\s*(?:(?:Unit|Suite|Level|Shop)\s+\d+\w?,?\s+)?\d+\w?(?:[/\-]\d+)?\s+[A-Za-z][A-Za-z' ]*\s(?:Street|St|Road|Rd|Avenue|Ave|Terrace|Tce|Mall|Lane|Ln|Drive|Dr|Place|Pl|Parade|Pde|Highway|Hwy|Boulevard|Blvd|Crescent|Cres|Way|Court|Ct|Close|Square|Esplanade)\b)",
      std::regex::icase);
  const std::string s(text);
  return (lexicon.state_postcode && std::regex_search(s, *lexicon.state_postcode)) ||
         std::regex_search(s, kStreet);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (std::size_t i = 0; i < out.size();) {
    const auto c = static_cast<unsigned char>(out[i]);
    if (c < 0x80) {
      out[i] = static_cast<char>(std::tolower(c));
      ++i;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(out.data() + i),
                                    static_cast<utf8proc_ssize_t>(out.size() - i), &cp);
    if (n <= 0) {  // not UTF-8: the byte as it is
      ++i;
      continue;
    }
    utf8proc_uint8_t lower[4];
    const auto m = utf8proc_encode_char(utf8proc_tolower(cp), lower);
    if (m == n)
      std::copy(lower, lower + m, out.begin() + static_cast<long>(i));  // same length: offsets hold
    i += static_cast<std::size_t>(n);
  }
  return out;
}

std::string casefold(std::string_view s, bool strip_marks) {
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return lowercase(s);
  }
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
      &mapped,
      static_cast<utf8proc_option_t>(UTF8PROC_CASEFOLD | UTF8PROC_COMPOSE |
                                     (strip_marks ? UTF8PROC_STRIPMARK : utf8proc_option_t{})));
  if (n < 0) return lowercase(s);  // not UTF-8: bytes as they are
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  std::free(mapped);
  return out;
}

std::string clean_text(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  const auto junk = [](char c) { return c == ':' || c == '-' || c == ' ' || c == '|' || c == ';'; };
  std::size_t b = 0, e = out.size();
  while (b < e && junk(out[b])) ++b;
  while (e > b && junk(out[e - 1])) --e;
  return out.substr(b, e - b);
}

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (!from.empty() && text.compare(at, from.size(), from) == 0) {
      out += to;
      at += from.size();
    } else {
      out += text[at++];
    }
  }
  return out;
}

std::string clean_address(std::string_view text) {
  std::string out = clean_text(text);
  const auto is = [&](std::size_t i, int (*test)(int)) {
    return i < out.size() && test(static_cast<unsigned char>(out[i])) != 0;
  };
  for (std::size_t i = 1; i + 2 < out.size(); ++i) {
    if (out[i] == '.' && is(i - 1, std::isdigit) && is(i + 1, std::isupper) &&
        is(i + 2, std::islower))
      out[i] = ' ';
  }
  // Specks OCR read around an address's ends: marks after its postcode ("VIC 3000 =", "SA 5000.",
  // "QLD 4000°"), a stop or a colon after its street's number ("7. Elizabeth Street"), and a stop
  // for the space between a region and its postcode ("SA.5000", "TAS..7000", "WA: 6000").
  static const std::regex kAfterPostcode(R"((\d{4,5})[^A-Za-z0-9(),]+$)");
  static const std::regex kNumberStop(R"(^(\d+)[.:]+ ([A-Z][a-z]))");
  static const std::regex kRegionStop(R"(\b([A-Z]{2,3})(?:[.:\-]+ ?| [.:\-]+ ?)(\d{4,5})$)");
  out = std::regex_replace(out, kAfterPostcode, "$1");
  out = std::regex_replace(out, kNumberStop, "$1 $2");
  out = std::regex_replace(out, kRegionStop, "$1 $2");
  return out;
}

std::optional<std::string> home_region_repaired(std::string_view address,
                                                const std::vector<std::string>& regions) {
  static const std::regex kRegionPostcode(R"(\b([A-Z0-9]{2,3})(\s*)\d{4}\s*\.?\s*$)");
  // The glyphs OCR takes for one another in capitals: Q and 0 for O, 5 for S, 1 and L for I.
  const auto folded = [](std::string word) {
    for (char& c : word) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (c == 'Q' || c == '0') c = 'O';
      if (c == '5') c = 'S';
      if (c == '1' || c == 'L') c = 'I';
    }
    return word;
  };
  const std::string s(address);
  std::smatch m;
  if (!std::regex_search(s, m, kRegionPostcode)) return std::nullopt;
  const std::string word = m.str(1);
  std::optional<std::string> region;
  for (const std::string& r : regions) {
    std::string as_printed = r;
    for (char& c : as_printed) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (as_printed == word) {  // it reads one
      if (m.length(2) > 0) return std::nullopt;
      region = as_printed;
      break;
    }
    if (folded(r) != folded(word)) continue;
    if (region) return std::nullopt;  // more than one
    region = as_printed;
  }
  if (!region) return std::nullopt;
  // Glued to its postcode ("Adelaide SA5000"), a space put between them.
  return s.substr(0, static_cast<std::size_t>(m.position(1))) + *region +
         (m.length(2) > 0 ? "" : " ") +
         s.substr(static_cast<std::size_t>(m.position(1) + m.length(1)));
}

std::string letters_only(std::string_view lowered) {
  std::string out;
  for (std::size_t i = 0; i < lowered.size();) {
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(lowered.data() + i),
                                    static_cast<utf8proc_ssize_t>(lowered.size() - i), &cp);
    if (n <= 0) {  // not UTF-8: a byte over 0x7f kept, as the heading's words may hold it
      if (static_cast<unsigned char>(lowered[i]) >= 0x80) out += lowered[i];
      ++i;
      continue;
    }
    const auto category = utf8proc_category(cp);
    if ((category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_ME))  // letters, marks
      out.append(lowered.substr(i, static_cast<std::size_t>(n)));
    i += static_cast<std::size_t>(n);
  }
  return out;
}

bool garbled_heading(const std::string& line, const std::string& next, const std::string& word) {
  if (word.size() < 5) return false;
  if (2 * word.size() >= line.size() && (line.find(word) != std::string::npos ||
                                         (word.size() >= 7 && edit_distance(line, word, 1) <= 1)))
    return true;
  return line.size() >= 3 && !next.empty() && word.compare(0, line.size(), line) == 0 &&
         garbled_heading(line + next, "", word);
}

}  // namespace docsift::ocr
