// The seller's address: the lines under its name (FieldFinder::business_address), without a lead-in
// label, and what makes a line an address (address_text) (field_finder.h); and the two line
// helpers the payer's address uses too (rule_text.h: without_address_label, before_number_label).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "docsift/ocr/field_finder.h"

namespace docsift::ocr::detail {

std::string without_address_label(const std::string& t, const std::vector<std::string>& labels) {
  const std::size_t colon = t.find(':');
  if (colon == std::string::npos) return t;
  const std::string lead = casefold(clean_text(t.substr(0, colon)));
  if (std::find(labels.begin(), labels.end(), lead) == labels.end()) return t;
  return t.substr(colon + 1);
}

std::string before_number_label(const Segment& segment, const Rules& rules) {
  // The hits' offsets are into `lowered`, which has the text's bytes where lowercasing kept them.
  if (segment.lowered.size() != segment.text.size()) return segment.text;
  std::size_t cut = segment.text.size();
  for (const Hit& h : segment.hits) {
    const std::string& kind = rules.fields[h.rule].kind;
    if (h.at > 0 && (kind == "abn" || kind == "bsb" || kind == "account" || kind == "phone"))
      cut = std::min(cut, h.at);
  }
  return segment.text.substr(0, cut);
}

bool address_ended(const std::string& address, const Rules& rules) {
  // Its words, lower case without accents; letters (UTF-8's bytes over 0x7f among them) and digits.
  const std::string folded = casefold(address, /*strip_marks=*/true);
  std::vector<std::string> words(1);
  for (const char c : folded) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80)
      words.back() += c;
    else if (!words.back().empty())
      words.emplace_back();
  }
  if (words.back().empty()) words.pop_back();
  const auto number = [](const std::string& w) { return !w.empty() && digits_in(w) == w.size(); };
  while (!words.empty() && number(words.back())) words.pop_back();
  const auto ends_with = [&](const std::string& listed) {
    const std::string name = casefold(listed, /*strip_marks=*/true);  // "österreich" as read
    std::vector<std::string> tail;
    for (std::size_t at = 0, end = 0; at <= name.size(); at = end + 1) {
      end = std::min(name.find(' ', at), name.size());
      if (end > at) tail.push_back(name.substr(at, end - at));
    }
    return !tail.empty() && tail.size() <= words.size() &&
           std::equal(tail.rbegin(), tail.rend(), words.rbegin());
  };
  for (const auto* names : {&rules.regions, &rules.home.regions, &rules.home.cities})
    if (std::any_of(names->begin(), names->end(), ends_with)) return true;
  return false;
}

namespace {

// A line of a label and a number, no part of an address whatever digits make it look like one
// (docs/ocr.md, "Other fields"): a registration or tax number under its label, misread or
// not ("Co. Reg No. (761834-D)", "(G57 Reg No. 001492992000)", "(AST ID No :000473792512)"); a
// number with its check letter alone ("(41704i-W)", "B20737=X"); a short label and its colon
// before none of an address's words or commas ("INV No # : BWMCO200004 7293", "Invoice :13834",
// "T: 03-2093 7358 | F: 03-2093 7359", "Site: 1046").
bool labelled_number(const std::string& t, const std::vector<std::string>& address_words) {
  static const std::regex kRegistered(
      R"(\b(?:reg(?:istration)?|co|company|id|gst|sst|roc)\b[\s.,]*(?:no|number)\b.*\d{4})",
      std::regex::icase);
  static const std::regex kChecked(R"(^\W*[A-Z]?\d{5}[\dA-Za-z]*\s*[-=]\s*[A-Za-z0-9%]\W*$)");
  static const std::regex kLabel(R"(^[^\d:]{1,20}:)");
  if (std::regex_search(t, kRegistered) || std::regex_search(t, kChecked)) return true;
  std::smatch label;
  if (!std::regex_search(t, label, kLabel) || !has_letters(label.str())) return false;
  const std::string rest = lowercase(label.suffix().str());
  return std::any_of(rest.begin(), rest.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }) &&
         rest.find(',') == std::string::npos &&
         std::none_of(address_words.begin(), address_words.end(), [&](const std::string& w) {
           return find_phrase(rest, w) != std::string::npos;
         });
}

// Whether a line starts with a street's word, once a misread one is put right ("Jalan Lapangan
// Terbang Subang", "Jin Besar Kepong"): a line of no number that FieldFinder::business_address
// takes before a line that is an address where the address has not begun, and after an address
// that ends with a comma. Not a branch's name that holds such a word further on ("DOMINO'S PIZZA
// TAMAN UNIVERSITI"), nor a note in brackets.
bool starts_with_street_word(const std::string& text, const Rules& rules) {
  const std::string lowered = lowercase(repair_address(text, rules));
  const std::size_t at = lowered.find_first_not_of(' ');
  std::size_t end = at;
  while (end < lowered.size() && std::isalpha(static_cast<unsigned char>(lowered[end]))) ++end;
  if (at == std::string::npos || end == at) return false;
  const std::string word = lowered.substr(at, end - at);
  return std::find(rules.address_words.begin(), rules.address_words.end(), word) !=
         rules.address_words.end();
}

}  // namespace

Address FieldFinder::business_address(const Seller& seller) const {
  // A line of place names inside an address, which no street word, number or comma marks as one
  // ("TAMAN AIR BIRU.", "Kelana Jaya", "SETAPAK"): taken where the next line goes on with the
  // address, so that the address does not stop short of its postcode and city. Not a line with a
  // label's colon or a number of three digits (a phone, however misread its label).
  // Up to two such lines in a row, specks aside ("DIAMOND SQUARE", "OFF JLN GOMBAK", "53000 ...").
  static const std::regex kNumberOrLabel(R"(\d{3}|:)");
  const auto place_names = [&](std::size_t k) {
    const std::string& t = r[k].text;
    return r[k].hits.empty() && has_letters(t) && !std::regex_search(t, kNumberOrLabel) &&
           !registration_number(k) && !parse_email(t) && !parse_amount(t, rules.lexicon) &&
           !parse_date(t, rules.lexicon);
  };
  // A line of no letter or digit ("." or ",", specks Tesseract read) does not end the address.
  const auto speck = [&](std::size_t k) {
    return std::none_of(r[k].text.begin(), r[k].text.end(),
                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
  };
  const auto not_address = [&](std::size_t k) {
    return registration_number(k) || labelled_number(r[k].text, rules.address_words);
  };
  const auto bridges = [&](std::size_t k) {
    int names = 0;
    for (std::size_t j = k; j + 1 < n && r[j + 1].line <= r[j].line + 1; ++j) {
      if (!speck(j) && (!place_names(j) || ++names > 2)) return false;
      if (address_like(j + 1) && r[j + 1].hits.empty() && !not_address(j + 1)) return true;
    }
    return false;
  };
  // A line that starts with a street's word and has no number (starts_with_street_word).
  const auto street = [&](std::size_t k) {
    return place_names(k) && starts_with_street_word(r[k].text, rules);
  };
  Address out;
  std::vector<std::size_t>& address_segments = out.segments;
  if (const std::optional<std::size_t> supplier_at = seller.at) {
    std::string address;
    std::size_t skipped = 0, last_line = r[*supplier_at].line;
    for (std::size_t k = *supplier_at + 1; k < n && r[k].line <= last_line + 2; ++k) {
      // The rest of the address's last line, read as a line of its own on a skewed page ("301
      // Queen Street, Brisbane" then "QLD 4000"): it starts where that line ends, at its height.
      const std::size_t at = address_segments.empty() ? k : address_segments.back();
      const bool goes_on = at != k && r[k].left >= r[at].right &&
                           r[k].left - r[at].right <= 2 * std::max(1, r[at].height) &&
                           std::abs(r[k].top - r[at].top) <= std::max(1, r[at].height);
      if (!goes_on && (r[k].left >= r[*supplier_at].right || r[k].right <= r[*supplier_at].left))
        continue;  // another column
      // The seller's numbers above its address are passed over; under it, they end it.
      if ((address.empty() && not_address(k)) || (!address.empty() && speck(k))) {
        last_line = r[k].line;
        continue;
      }
      if (not_address(k)) break;
      // An address's line going on with the seller's phone or other number ("81750 Johor Bahru,
      // Johor. Tel No.: 07-387 3322"): its part before the number's label.
      const std::string lead = before_number_label(r[k], rules);
      if (lead.size() < r[k].text.size() && address_text(lead)) {
        append_joined(address, " ", clean_address(lead));
        address_segments.push_back(k);
        last_line = r[k].line;
        continue;
      }
      const bool after_comma = !address.empty() && address.back() == ',';
      if ((address_like(k) && r[k].hits.empty()) ||
          (address.empty() ? street(k) && bridges(k) : bridges(k) || (after_comma && street(k)))) {
        append_joined(address, " ",
                      clean_address(without_address_label(r[k].text, rules.address_labels)));
        address_segments.push_back(k);
        last_line = r[k].line;
      } else if (!address.empty() || ++skipped > 2) {
        break;
      } else {
        last_line = r[k].line;
      }
    }
    if (address.empty()) return {};
    out.finding =
        Finding{"BUSINESS_ADDRESS", repair_address(address, rules), *supplier_at, {}, nullptr};
    out.finding->noted.lines_skipped = static_cast<int>(skipped);
  }
  return out;
}

bool FieldFinder::address_text(const std::string& t, bool regions) const {
  const std::string lowered = lowercase(t);
  return looks_like_address(t, rules.lexicon) ||
         (regions && has_any_fuzzy(lowered, rules.regions)) ||
         (has_phrase(lowered, rules.address_words) &&
          std::any_of(t.begin(), t.end(),
                      [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == ',';
                      })) ||
         // A date's year is no postcode ("03 Apr 2018 18:33"), nor a phone number's four digits.
         (std::regex_search(t, kPostcode) && has_letters(t) && !parse_amount(t, rules.lexicon) &&
          !parse_date(t, rules.lexicon) && !parse_phone(t));
}

}  // namespace docsift::ocr::detail
