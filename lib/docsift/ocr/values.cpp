#include "docsift/ocr/values.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <regex>
#include <vector>

namespace docsift::ocr {
namespace {

std::string digits_of(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

bool valid_day(int d, int m, int y) {
  static constexpr std::array<int, 12> kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] || y < 1900 || y > 2199) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

std::optional<std::string> format_date(int d, int m, int y) {
  if (y < 100) y += 2000;
  if (!valid_day(d, m, y)) return std::nullopt;
  char out[32];
  std::snprintf(out, sizeof out, "%02d/%02d/%04d", d, m, y);
  return std::string(out);
}

int month_of(std::string_view name) {
  static constexpr std::array<const char*, 12> kMonths{"jan", "feb", "mar", "apr", "may", "jun",
                                                       "jul", "aug", "sep", "oct", "nov", "dec"};
  const std::string l = lowercase(name.substr(0, 3));
  for (int i = 0; i < 12; ++i) {
    if (l == kMonths[i]) return i + 1;
  }
  return 0;
}

// Every date in `text`, in order of position.
std::vector<std::string> dates_in(std::string_view text) {
  static const std::regex kNumeric(R"((^|[^\d])(\d{1,2})\s?[/.\-]\s?(\d{1,2})\s?[/.\-]\s?(\d{4}|\d{2})(?!\d))");
  static const std::regex kIso(R"((^|[^\d])(\d{4})-(\d{2})-(\d{2})(?!\d))");
  static const std::regex kDayMonth(
      R"((^|[^\d])(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4}))");
  static const std::regex kMonthDay(R"(\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}))");
  std::vector<std::pair<long, std::string>> found;
  const std::string s(text);
  for (std::sregex_iterator it(s.begin(), s.end(), kIso), end; it != end; ++it) {
    if (auto d = format_date(std::stoi((*it)[4]), std::stoi((*it)[3]), std::stoi((*it)[2]))) {
      found.emplace_back(it->position(2), *d);
    }
  }
  if (found.empty()) {
    for (std::sregex_iterator it(s.begin(), s.end(), kNumeric), end; it != end; ++it) {
      if (auto d = format_date(std::stoi((*it)[2]), std::stoi((*it)[3]), std::stoi((*it)[4]))) {
        found.emplace_back(it->position(2), *d);
      }
    }
  }
  for (std::sregex_iterator it(s.begin(), s.end(), kDayMonth), end; it != end; ++it) {
    if (const int m = month_of((*it)[3].str()); m > 0) {
      if (auto d = format_date(std::stoi((*it)[2]), m, std::stoi((*it)[4]))) found.emplace_back(it->position(2), *d);
    }
  }
  for (std::sregex_iterator it(s.begin(), s.end(), kMonthDay), end; it != end; ++it) {
    if (const int m = month_of((*it)[1].str()); m > 0) {
      if (auto d = format_date(std::stoi((*it)[2]), m, std::stoi((*it)[3]))) found.emplace_back(it->position(1), *d);
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [pos, d] : found) out.push_back(std::move(d));
  return out;
}

}  // namespace

bool abn_checksum_ok(std::string_view d) {
  static constexpr std::array<int, 11> kWeights{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
  if (d.size() != 11 || d[0] == '0') return false;
  int sum = 0;
  for (int i = 0; i < 11; ++i) sum += kWeights[i] * ((d[i] - '0') - (i == 0 ? 1 : 0));
  return sum % 89 == 0;
}

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

std::optional<std::string> parse_date(std::string_view text) {
  auto all = dates_in(text);
  if (all.empty()) return std::nullopt;
  return all.front();
}

std::optional<std::string> parse_period(std::string_view text) {
  auto all = dates_in(text);
  if (all.size() < 2) return std::nullopt;
  return all[0] + " to " + all[1];
}

std::optional<std::string> parse_amount(std::string_view text) {
  // Thousands by ',' (or a space OCR put there), two decimals; '$' or a currency word optional.
  static const std::regex kAmount(R"((^|[^\d.,])(\d{1,3}(?:[, ]\d{3})+|\d+)[.,](\d{2})(?![\d]))");
  const std::string s(text);
  std::optional<std::string> last;
  for (std::sregex_iterator it(s.begin(), s.end(), kAmount), end; it != end; ++it) {
    const std::string whole = digits_of((*it)[2].str());
    if (whole.size() > 12) continue;
    std::string grouped;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
      grouped += whole[i];
    }
    // Leading zeros ("0012.50") are OCR noise or an id, not money.
    if (whole.size() > 1 && whole[0] == '0') continue;
    last = "$" + grouped + "." + (*it)[3].str();
  }
  return last;
}

std::optional<long long> amount_cents(std::string_view formatted) {
  const std::string d = digits_of(formatted);
  if (d.empty() || d.size() > 15) return std::nullopt;
  return std::stoll(d);
}

std::optional<std::string> parse_bsb(std::string_view text) {
  static const std::regex kBsb(R"((^|[^\d])(\d{3})[ \-]?(\d{3})(?!\d))");
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

std::optional<std::string> parse_phone(std::string_view text) {
  static const std::regex kPhone(
      R"((\(0\d\)\s?\d{4}\s?\d{4}|\+61\s?\d\s?\d{4}\s?\d{4}|0\d\s\d{4}\s\d{4}|04\d{2}\s?\d{3}\s?\d{3}|1[38]00\s?\d{3}\s?\d{3}))");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kPhone)) return std::nullopt;
  return clean_text(m[1].str());
}

std::optional<std::string> parse_email(std::string_view text) {
  static const std::regex kEmail(R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)");
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kEmail)) return std::nullopt;
  return lowercase(m.str());
}

std::optional<std::string> parse_website(std::string_view text) {
  static const std::regex kWeb(R"(((?:https?://)?www\.[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+|https?://[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)(?:/\S*)?)",
                               std::regex::icase);
  std::smatch m;
  const std::string s(text);
  if (!std::regex_search(s, m, kWeb)) return std::nullopt;
  return lowercase(m.str());
}

bool looks_like_address(std::string_view text) {
  static const std::regex kState(R"(\b(NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4}\b)");
  static const std::regex kStreet(
      R"(^\s*(?:(?:Unit|Suite|Level|Shop)\s+\d+\w?,?\s+)?\d+\w?(?:[/\-]\d+)?\s+[A-Za-z][A-Za-z' ]*\s(?:Street|St|Road|Rd|Avenue|Ave|Terrace|Tce|Mall|Lane|Ln|Drive|Dr|Place|Pl|Parade|Pde|Highway|Hwy|Boulevard|Blvd|Crescent|Cres|Way|Court|Ct|Close|Square|Esplanade)\b)",
      std::regex::icase);
  const std::string s(text);
  return std::regex_search(s, kState) || std::regex_search(s, kStreet);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
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

}  // namespace docsift::ocr
