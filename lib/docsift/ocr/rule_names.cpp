// Names as the rules keep them (rule_text.h, rules.h): a seller's name as printed, and a name's
// misread letters and words of trade repaired.
#include "docsift/ocr/rule_text.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/edit_distance.h"

namespace docsift::ocr {

using namespace detail;  // repair_name (rules.h) is built from the helpers

namespace detail {

bool forms_alone(const std::string& name, const Rules& rules) {
  const auto bare = [](std::string word) {
    std::string out;
    for (const char c : word)
      if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80)
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::set<std::string> forms;
  for (const std::string& form : rules.company_forms) {
    std::istringstream words(form);
    for (std::string w; words >> w;) forms.insert(bare(w));
  }
  std::istringstream words(name);
  bool any = false;
  for (std::string w; words >> w;) {
    const std::string b = bare(w);
    if (b.empty()) continue;
    if (!forms.count(b)) return false;
    any = true;
  }
  return any;
}

bool has_phrase(const std::string& lowered, const std::vector<std::string>& phrases) {
  return std::any_of(phrases.begin(), phrases.end(), [&](const auto& phrase) {
    return find_phrase(lowered, phrase) != std::string::npos;
  });
}

bool has_company_form(const std::string& text, const Rules& rules) {
  return has_phrase(lowercase(text), rules.company_forms);
}

// A seller's name as printed, without its registration number ("AEON CO. (M) BHD (126926-H)",
// "Dion Realties Sdn Bhd (Co. No:20154-T)") or a lead-in ("OWN BY: CHEF LEE SDN BHD").
std::string name_of(const std::string& text) {
  static const std::regex kRegistration(R"(\([^()]*\d{3,}[^()]*(\)|$)|\S*\d{4,}\S*)");
  // A sender line: "Hetzner Online GmbH • Industriestr. 25 • 91710 Gunzenhausen".
  static const std::regex kSeparator(R"( (•|·|●|\||-|–) )");
  std::smatch sep;
  const std::string first = std::regex_search(text, sep, kSeparator) ? sep.prefix().str() : text;
  std::string name = std::regex_replace(first, kRegistration, "");
  if (const auto colon = name.rfind(':'); colon != std::string::npos) name = name.substr(colon + 1);
  // Tesseract reads a printed Y with its serifs as the yen sign ("MR. D.I.¥."), or as both
  // ("D.I.Y¥."); no seller's name holds one.
  static const std::string yen = "\u00a5";
  std::string read;
  for (std::size_t at = 0; at < name.size();) {
    if (name.compare(at, yen.size(), yen) != 0) {
      read += name[at++];
      continue;
    }
    if (read.empty() || read.back() != 'Y') read += 'Y';
    at += yen.size();
  }
  return clean_text(read);
}

// `fixed` (lower case) in the case of `word`: all capitals when it is, else its first letter's
// case.
std::string in_case_of(const std::string& word, std::string fixed) {
  // All capitals, an accented one's UTF-8 bytes (over 0x7f) among them ("ADÉLAIDE").
  const bool upper = std::all_of(word.begin(), word.end(),
                                 [](char c) {
                                   return std::isupper(static_cast<unsigned char>(c)) ||
                                          static_cast<unsigned char>(c) >= 0x80;
                                 }) &&
                     std::any_of(word.begin(), word.end(), [](char c) {
                       return std::isupper(static_cast<unsigned char>(c));
                     });
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    if (upper || (i == 0 && std::isupper(static_cast<unsigned char>(word[0])))) {
      fixed[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(fixed[i])));
    }
  }
  return fixed;
}

}  // namespace detail

namespace {

bool is_trade_word(const std::string& lowered, const Rules& rules) {
  return std::find(rules.business_words.begin(), rules.business_words.end(), lowered) !=
         rules.business_words.end();
}

// A word of trade misread by one letter ("HARDUARE"), or two read as one with the space lost
// ("SYARIKATPERNIAGAAN"); only letters, so "(KE)" or "D.I.Y." stay as they are.
std::string repair_trade_word(const std::string& word, const Rules& rules) {
  const bool letters = std::all_of(
      word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  if (!letters || word.size() < 6) return word;
  const std::string lowered = casefold(word);
  if (is_trade_word(lowered, rules)) return word;
  for (std::size_t k = 6; k + 6 <= lowered.size(); ++k) {
    if (is_trade_word(lowered.substr(0, k), rules) && is_trade_word(lowered.substr(k), rules)) {
      return word.substr(0, k) + " " + word.substr(k);
    }
  }
  const std::string* match = nullptr;
  int matches = 0;
  for (const auto& w : rules.business_words) {
    if (edit_distance(lowered, w, 1) <= 1) match = &w, ++matches;
  }
  return matches == 1 ? in_case_of(word, *match) : word;
}

// Whether OCR mistakes letters `a` and `b` (lower case) for each other often enough that a word of
// an address read with one for the other is that word: the strokes they share ("TAHAN" for TAMAN,
// "Lunpur" for Lumpur, "Tamar" for Taman, "Jin" for Jln).
bool confusable(char a, char b) {
  static constexpr std::string_view kPairs[] = {"hm", "mn", "nr", "hn", "il", "uv", "co", "ce"};
  return std::any_of(std::begin(kPairs), std::end(kPairs), [&](std::string_view p) {
    return (p[0] == a && p[1] == b) || (p[0] == b && p[1] == a);
  });
}

// Whether `read` (letters, lower case) is `word` misread: a word of five letters or more with an
// "m" of it read as strokes or "rn" read as an "m" ("Melboume": detail::strokes_misread); a word of
// six letters or more one edit from it ("Selangot", "PERINIDUSTRIAN", "SEKSYENM"), not a plural's
// s; a shorter one the same
// length, one letter different and confusable with it, in a word of three or four letters not the
// first or the last (a short word so changed is too often another word of the street's name:
// "Hall" is one stroke from Mall).
bool misread_as(const std::string& read, const std::string& word) {
  if (word.size() >= 5 && detail::strokes_misread(read, word)) return true;
  if (read.size() >= 6 && word.size() >= 5) {
    return edit_distance(read, word, 1) == 1 && read != word + "s" && word != read + "s";
  }
  if (word.size() != read.size()) return false;
  std::size_t diffs = 0, at = 0;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (word[i] != read[i]) ++diffs, at = i;
  return diffs == 1 && confusable(word[at], read[at]) &&
         (word.size() > 4 || (at != 0 && at + 1 != word.size()));
}

// The one word of `vocabulary` that `lowered` (not itself a word of it) is read for.
const std::string* misread_of(const std::string& lowered,
                              const std::vector<std::string>& vocabulary) {
  const std::string* match = nullptr;
  for (const std::string& w : vocabulary) {
    if (w == lowered) return nullptr;
    if (!misread_as(lowered, w)) continue;
    if (match && *match != w) return nullptr;
    match = &w;
  }
  return match;
}

}  // namespace

std::string repair_address(const std::string& address, const Rules& rules) {
  const auto alnum = [&](std::size_t i) {
    return i < address.size() && std::isalnum(static_cast<unsigned char>(address[i])) != 0;
  };
  std::string out;
  for (std::size_t at = 0; at < address.size();) {
    std::size_t end = at;
    // Letters, accented ones among them (UTF-8's bytes over 0x7f).
    const auto letter = [&](std::size_t i) {
      const auto c = static_cast<unsigned char>(address[i]);
      return std::isalpha(c) != 0 || c >= 0x80;
    };
    while (end < address.size() && letter(end)) ++end;
    if (end == at) {
      out += address[at++];
      continue;
    }
    std::string word = address.substr(at, end - at);
    // A run of letters that is a word alone: no digit glued to it ("U13X", "Seksyen5"). A word the
    // rules know read with an accent it does not print ("Sydnéy", "Adélaide") is that word.
    if (word.size() >= 3 && (at == 0 || !alnum(at - 1)) && !alnum(end)) {
      const std::string bare = casefold(word, /*strip_marks=*/true);
      const auto& known = rules.address_vocabulary;
      if (bare != casefold(word) && std::find(known.begin(), known.end(), bare) != known.end())
        word = in_case_of(word, bare);
      else if (const std::string* fixed = misread_of(bare, known))
        word = in_case_of(word, *fixed);
    }
    out += word;
    at = end;
  }
  return out;
}

std::string repair_name(const std::string& name, const Rules& rules) {
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find(' ', start);
    if (end == std::string::npos) end = name.size();
    std::string word = name.substr(start, end - start);
    // Dotted initials: single characters each followed by a dot, capitals and at least one digit.
    bool initials = word.size() >= 4, digit = false;
    for (std::size_t i = 0; initials && i < word.size(); ++i) {
      const char c = word[i];
      if (i % 2 == 1)
        initials = c == '.';
      else
        initials = std::isupper(static_cast<unsigned char>(c)) ||
                   std::isdigit(static_cast<unsigned char>(c));
      digit = digit || std::isdigit(static_cast<unsigned char>(c));
    }
    if (initials && digit) {
      for (std::size_t i = 0; i < word.size(); i += 2) {
        static const std::string kDigits = "0158", kLetters = "OISB";
        if (const auto at = kDigits.find(word[i]); at != std::string::npos) word[i] = kLetters[at];
      }
    }
    // A zero among capitals with no other digit is the letter O ("HAI-0 RAYA BHD", "C0FFEE").
    if (word.find('0') != std::string::npos && detail::letters_in(word) >= 2 &&
        std::none_of(word.begin(), word.end(),
                     [](char c) { return (c >= '1' && c <= '9') || (c >= 'a' && c <= 'z'); }))
      std::replace(word.begin(), word.end(), '0', 'O');
    word = repair_trade_word(word, rules);
    append_joined(out, " ", word);
    start = end + 1;
  }
  return out;
}

}  // namespace docsift::ocr
