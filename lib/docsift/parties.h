// The two parties of a page, the payer and the seller, and the fields of each that hold the same
// kind of value: one definition for the OCR engine's page check (ocr/page_checks.cpp, evidence
// against both values) and the review queue's "parties clash" (extract/review_queue.h), which
// sit in layers that cannot use each other.
#pragma once

#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

namespace docsift {

// {payer's field, seller's field}: a name, an address, a phone.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kPartyFields{
    {{"PAYER_NAME", "SUPPLIER"},
     {"PAYER_ADDRESS", "BUSINESS_ADDRESS"},
     {"PAYER_PHONE", "BUSINESS_PHONE"}}};

// A value's letters and digits alone (and every byte of a non-ASCII letter), case aside: "44
// Rundle Mall, Adelaide SA 5000." is "44rundlemalladelaidesa5000".
inline std::string party_key(std::string_view value) {
  std::string k;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) k += static_cast<char>(std::tolower(u));
  }
  return k;
}
// Whether the payer's value is the seller's: their keys the same and not empty. One of the two was
// then read from the other party's lines.
inline bool same_party_value(std::string_view payer, std::string_view seller) {
  const std::string a = party_key(payer);
  return !a.empty() && a == party_key(seller);
}

// Whether a name is the start of an address read on the page, by the letters and digits of both:
// at least kLeastAddressShare of it and a digit ("44 Rundle Mall, Adelaide SA" beside "44 Rundle
// Mall, Adelaide SA 5000"). The name was read from the address's line.
inline constexpr double kLeastAddressShare = 0.6;
inline bool name_is_address(std::string_view name, std::string_view address) {
  const std::string n = party_key(name), a = party_key(address);
  bool digit = false;
  for (const char c : n) digit = digit || std::isdigit(static_cast<unsigned char>(c)) != 0;
  return digit &&
         static_cast<double>(n.size()) >= kLeastAddressShare * static_cast<double>(a.size()) &&
         a.compare(0, n.size(), n) == 0;
}

}  // namespace docsift
