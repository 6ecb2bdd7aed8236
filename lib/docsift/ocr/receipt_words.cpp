// A receipt's words as figures (receipt_words.h).
#include "docsift/ocr/receipt_words.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <utility>

namespace docsift::ocr::receipt_words {

// An amount with cents as a receipt prints it: a currency mark before it ("RM13.50", "$7.10"), a
// comma for the point ("9,90"), and a tax code read onto it ("5.90SR", "32.708R" for "32.70 SR",
// "71.00(S)"), and a unit price's four places ("2.9000"). In cents, or none.
std::optional<long long> cents_of(const std::string& token) {
  static const std::regex amount(
      R"(^(-)?(?:R[MHN]|\$)?(\d{1,3}(?:,\d{3})+|\d+)[.,](\d\d)(?:00)?(?:[SZ258]?R[L.]?|\(S\)|[ST])?$)");
  std::smatch m;
  if (!std::regex_match(token, m, amount)) return std::nullopt;
  std::string whole = m[2].str();
  whole.erase(std::remove(whole.begin(), whole.end(), ','), whole.end());
  if (whole.size() > 7) return std::nullopt;  // a code's digits, not a receipt's amount
  const long long cents = std::stoll(whole) * 100 + std::stoll(m[3].str());
  return m[1].matched ? -cents : cents;
}

std::string plain(long long cents) {
  const long long a = std::llabs(cents);
  std::string s =
      std::to_string(a / 100) + "." + (a % 100 < 10 ? "0" : "") + std::to_string(a % 100);
  return cents < 0 ? "-" + s : s;
}

// A quantity as receipts print it: "2", "1.00", "*4", "#1", "1.00PCS", "3pc". Its number, or none.
std::optional<std::string> quantity_of(const std::string& token) {
  static const std::regex quantity(R"(^(?:\*|#|\xC2\xA5)?(\d{1,4}(?:\.\d{1,3})?)(?:PCS|pcs|pc)?$)");
  std::smatch m;
  if (!std::regex_match(token, m, quantity)) return std::nullopt;
  return m[1].str();
}

bool unit_word(const std::string& token) {
  static const std::regex unit(R"(^(?:pcs?|pes|ea|units?|kg|g|ltr|l|btl|pkt|ctn|box)\.?$)",
                               std::regex::icase);
  return std::regex_match(token, unit);
}

// A tax code or a currency printed after the amount ("SR", "ZRL", "*S", "T", "RM", "Ri").
bool trailing_code(const std::string& token) {
  static const std::regex code(R"(^[*(]?(?:[SZ258]?R[L.]?|[STZEX]|R[A-Za-z]{1,2})\)?[.,]?$)",
                               std::regex::icase);
  return std::regex_match(token, code);
}

// A mark OCR read from a rule or a speck: no letter or digit ("|", "§", ":").
bool mark(const std::string& w) {
  return std::none_of(w.begin(), w.end(),
                      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

bool is_times(const std::string& t) { return t == "x" || t == "X" || t == "*"; }

// A word of a name: two letters or more and no digit ("Teh", "H/C"; not "FMa1", a barcode).
bool name_word(const std::string& t) {
  std::size_t letters = 0;
  for (const char c : t) {
    if (std::isdigit(static_cast<unsigned char>(c))) return false;
    if (std::isalpha(static_cast<unsigned char>(c))) ++letters;
  }
  return letters >= 2;
}

bool checks(const std::optional<std::string>& q, const std::optional<std::string>& p, long long a) {
  if (!q || !p) return false;
  const auto price = cents_of(*p);
  return price && std::llabs(std::llround(std::atof(q->c_str()) * *price) - a) <= 1;
}

std::optional<std::string> price_of(std::string s) {
  if (!s.empty() && s[0] == '@') s.erase(0, 1);
  const auto c = cents_of(s);
  return c ? std::optional(plain(*c)) : std::nullopt;
}

std::optional<Pair> checked_pair(const std::vector<std::string>& t, std::size_t k, long long a) {
  const auto whole_quantity = [](const std::string& w) -> std::optional<std::string> {
    const auto q = quantity_of(w);
    const double n = q ? std::atof(q->c_str()) : 0;
    if (n < 2 || n != std::floor(n)) return std::nullopt;
    return q;
  };
  const auto price = [](std::string w) {
    while (!w.empty() && mark(w.substr(w.size() - 1))) w.pop_back();  // "2.13:"
    return w.empty() ? std::nullopt : price_of(w);
  };
  std::optional<Pair> found;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = i + 1; j < k && j <= i + 4; ++j) {
      for (const auto& [q, p] : {std::pair{i, j}, std::pair{j, i}}) {
        const auto quantity = whole_quantity(t[q]);
        const auto unit = price(t[p]);
        if (checks(quantity, unit, a)) found = Pair{*quantity, *unit, i};
      }
    }
  }
  return found;
}

// "1X" (a quantity and the times sign read as one word): the quantity.
std::optional<std::string> times_quantity(const std::string& t) {
  if (t.size() < 2 || (t.back() != 'x' && t.back() != 'X')) return std::nullopt;
  return quantity_of(t.substr(0, t.size() - 1));
}

// Figures whose point OCR lost, where the line's other figures give it back: an amount equal to
// the unit price before it ("1 8.90 890"), or a quantity times a unit price ("6 2.12 1272",
// "2.12 6 1272"); a unit price that times the quantity before it gives the amount ("1 240 2.40");
// both, where they check as printed ("1 3180 3180": 31.80 each, as a receipt prints cents).
void restore_point(std::vector<std::string>& t) {
  static const std::regex digits(R"(^\d{3,8}$)");
  const std::size_t n = t.size();
  if (n < 2) return;
  const auto price = [](const std::string& w) {
    return cents_of(w.front() == '@' ? w.substr(1) : w);
  };
  const auto number = [](const std::string& w) { return std::regex_match(w, digits); };
  const auto times = [](const std::string& q, long long unit) -> std::optional<long long> {
    const auto quantity = quantity_of(q);
    if (!quantity) return std::nullopt;
    return std::llround(std::atof(quantity->c_str()) * static_cast<double>(unit));
  };
  if (number(t.back())) {
    const long long printed = std::stoll(t.back());
    bool found = price(t[n - 2]) && *price(t[n - 2]) == printed;
    if (!found && n >= 3) {  // "Q P A" or "P Q A"
      const auto first = price(t[n - 3]), second = price(t[n - 2]);
      found = (second && times(t[n - 3], *second) == printed) ||
              (first && times(t[n - 2], *first) == printed);
    }
    if (!found && n >= 3 && number(t[n - 2]) && times(t[n - 3], std::stoll(t[n - 2])) == printed) {
      t[n - 2] = plain(std::stoll(t[n - 2])), found = true;
    }
    if (found) t.back() = plain(printed);
  } else if (n >= 3 && number(t[n - 2]) && price(t.back()) &&
             times(t[n - 3], std::stoll(t[n - 2])) == price(t.back())) {
    t[n - 2] = plain(std::stoll(t[n - 2]));
  }
}

namespace {

// A quantity and a unit price read as one word, "2x8.80" or, price first, "3.50*1": the three
// words "Q x P". Other words as they are.
void split_times(std::vector<std::string>& t) {
  static const std::regex quantity_first(R"(^(\d{1,4}(?:\.\d{1,3})?)[xX*](\d+[.,]\d\d)$)"),
      price_first(R"(^(\d+[.,]\d\d)\*(\d{1,4}(?:\.\d{1,3})?)$)");
  std::vector<std::string> out;
  for (const std::string& w : t) {
    std::smatch m;
    if (std::regex_match(w, m, quantity_first)) {
      out.insert(out.end(), {m[1].str(), "x", m[2].str()});
    } else if (std::regex_match(w, m, price_first)) {
      out.insert(out.end(), {m[2].str(), "x", m[1].str()});
    } else {
      out.push_back(w);
    }
  }
  t = std::move(out);
}

// An amount OCR read in two words at its point ("15. 40", "18, 295R" for "18.29 SR"): one word.
void join_split(std::vector<std::string>& t) {
  static const std::regex whole(R"(^-?(RM|\$)?\d+[.,]$)"), cents(R"(^\d\d([SZ258]?R[L.]?|\D.*)?$)");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (std::regex_match(t[i], whole) && i + 1 < t.size() && std::regex_match(t[i + 1], cents)) {
      out.push_back(t[i] + t[i + 1]), ++i;
    } else {
      out.push_back(t[i]);
    }
  }
  t = std::move(out);
}

// A currency mark read apart from its figure ("RM 2.80"): one word, as it is printed glued.
void join_currency(std::vector<std::string>& t) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if ((t[i] == "RM" || t[i] == "$") && i + 1 < t.size() &&
        std::isdigit(static_cast<unsigned char>(t[i + 1].front())) && cents_of(t[i + 1])) {
      out.push_back(t[i] + t[i + 1]), ++i;
    } else {
      out.push_back(t[i]);
    }
  }
  t = std::move(out);
}

}  // namespace

// The words of one line of a receipt with what OCR does to its figures undone, where the line
// itself says how: an amount read in two words at its point, a currency read apart, a quantity and
// its price read as one word; then the marks, tax codes and currency printed after the amount
// dropped ("17.60 §", "5.90 SR").
void mend(std::vector<std::string>& t) {
  join_split(t);
  join_currency(t);
  split_times(t);
  while (!t.empty() && mark(t.back())) t.pop_back();
  for (int codes = 0; codes < 2 && !t.empty() && trailing_code(t.back()); ++codes) t.pop_back();
}

}  // namespace docsift::ocr::receipt_words
