// An Australian Business Number's check digits: one definition for the OCR engine, which reads
// only ABNs that pass (ocr/values.h: parse_abn) and checks the one it keeps (ocr/page_checks.cpp),
// and the review queue's "malformed" (extract/review_queue.h), which queues a value of any engine
// that fails; the two sit in layers that cannot use each other.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace docsift {

// Whether `eleven_digits` (11 ASCII digits, nothing else) is an ABN: the first digit less one, then
// each digit, weighted 10, 1, 3, 5, …, 19, sum to a multiple of 89 (the ATO's published rule).
inline bool abn_checksum_ok(std::string_view eleven_digits) {
  static constexpr std::array<int, 11> kWeights{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
  const std::string_view d = eleven_digits;
  if (d.size() != 11 || d[0] == '0') return false;
  int sum = 0;
  for (std::size_t i = 0; i < 11; ++i) {
    if (d[i] < '0' || d[i] > '9') return false;
    sum += kWeights[i] * ((d[i] - '0') - (i == 0 ? 1 : 0));
  }
  return sum % 89 == 0;
}

// Whether `value` writes an ABN, whatever stands between its groups ("51 824 753 556",
// "51-824-753-556"): its digits, and nothing but them, pass abn_checksum_ok.
inline bool abn_value_ok(std::string_view value) {
  std::string digits;
  for (const char c : value) {
    if (c >= '0' && c <= '9') digits += c;
  }
  return abn_checksum_ok(digits);
}

}  // namespace docsift
