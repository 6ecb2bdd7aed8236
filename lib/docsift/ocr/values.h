// Values as documents print them, checked and written in the ground truth's forms. Each parser
// looks for its value anywhere in `text` (OCR text around a label) and returns nothing unless a
// value passes its check: the checks are what tell a real value from OCR noise.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docsift::ocr {

// An Australian Business Number: 11 digits (spaces, dots or dashes between groups) whose weighted
// sum, after subtracting 1 from the first digit, is divisible by 89. As "51 824 753 556".
std::optional<std::string> parse_abn(std::string_view text);
bool abn_checksum_ok(std::string_view eleven_digits);

// A date in a common printed form: 03/04/2025, 3/4/25, 03-04-2025, 03.04.2025, 2025-04-03,
// 3 April 2025, 3 Apr 2025, April 3, 2025, 3rd April 2025. Day first for numeric forms (the
// documents are Australian). Invalid dates (31/02) are rejected. As "03/04/2025".
std::optional<std::string> parse_date(std::string_view text);

// Two dates, as "DD/MM/YYYY to DD/MM/YYYY" (a statement period: "01/07/2025 - 28/07/2025").
std::optional<std::string> parse_period(std::string_view text);

// The last money amount in `text` that has cents: "$1,234.56", "1234.56", "AUD 1,234.56",
// "-$509.21" (sign dropped), "$ 1 234.56" (OCR's spaces). As "$1,234.56".
std::optional<std::string> parse_amount(std::string_view text);
// The same amount's value in cents, for the subtotal + GST = total check.
std::optional<long long> amount_cents(std::string_view formatted);

// A BSB: 3 + 3 digits ("063 140", "063-140", "063140"). As "063 140".
std::optional<std::string> parse_bsb(std::string_view text);

// A bank account number: 6 to 10 digits, possibly grouped by spaces or dashes. Digits only.
std::optional<std::string> parse_account(std::string_view text);

// An Australian phone number: (02) 1889 4771, 02 1889 4771, +61 2 1889 4771, 0412 345 678,
// 1300 123 456. As printed, spaces normalised.
std::optional<std::string> parse_phone(std::string_view text);

std::optional<std::string> parse_email(std::string_view text);
// www.example.com.au or http(s)://…, as printed.
std::optional<std::string> parse_website(std::string_view text);

// Whether a line reads as a street address: a state and postcode ("VIC 3000"), or a number then a
// street word ("88 Collins Street").
bool looks_like_address(std::string_view text);

// ASCII letters lowered (labels and headings are matched so; other bytes are kept).
std::string lowercase(std::string_view s);

// `text` with runs of whitespace as one space, trimmed, and leading/trailing ':' '-' removed.
std::string clean_text(std::string_view text);

}  // namespace docsift::ocr
