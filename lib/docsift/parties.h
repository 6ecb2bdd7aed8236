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

// Whether the payer's value is the seller's: their letters and digits alone (and every byte of a
// non-ASCII letter), case aside, the same and not empty ("44 Rundle Mall, Adelaide SA 5000." is
// "44 rundle mall adelaide sa 5000"). One of the two was then read from the other party's lines.
inline bool same_party_value(std::string_view payer, std::string_view seller) {
  const auto key = [](std::string_view value) {
    std::string k;
    for (const char c : value) {
      const auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || u >= 0x80) k += static_cast<char>(std::tolower(u));
    }
    return k;
  };
  const std::string a = key(payer);
  return !a.empty() && a == key(seller);
}

}  // namespace docsift
