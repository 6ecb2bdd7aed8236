#include "docsift/ocr/page_checks.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/abn.h"
#include "docsift/ocr/values.h"
#include "docsift/parties.h"

namespace docsift::ocr {
namespace {

using Fields = std::map<std::string, std::string>;

const std::string* found(const Fields& fields, const char* name) {
  const auto it = fields.find(name);
  return it == fields.end() || it->second == "N/A" ? nullptr : &it->second;
}

std::optional<long long> cents_of(const Fields& fields, const char* name) {
  const std::string* v = found(fields, name);
  return v ? amount_cents(*v) : std::nullopt;
}

// DD/MM/YYYY, as format_date writes it, as a sortable day number (not a calendar count: enough to
// order two dates and bound a span by about a year).
std::optional<long> day_number(std::string_view s) {
  const std::optional<Date> d = formatted_date(s);
  if (!d) return std::nullopt;
  return d->year * 372L + (d->month - 1) * 31L + (d->day - 1);
}

// Whether `label` is in `lowered` as whole words.
bool has_words(const std::string& lowered, const std::string& label) {
  for (std::size_t at = lowered.find(label); at != std::string::npos;
       at = lowered.find(label, at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(lowered[at - 1]));
    const std::size_t end = at + label.size();
    if (starts &&
        (end == lowered.size() || !std::isalnum(static_cast<unsigned char>(lowered[end]))))
      return true;
  }
  return false;
}

class Checks {
 public:
  Checks(const Fields& fields, std::map<std::string, Evidence>& evidence, const Rules& rules)
      : fields_(fields), evidence_(evidence), rules_(rules) {}

  // Marks every field of `names` that has evidence: vouched when `passed`, contradicted when not.
  void mark(std::initializer_list<const char*> names, bool passed) {
    for (const char* name : names) {
      const auto e = evidence_.find(name);
      if (e == evidence_.end() || !found(fields_, name)) continue;
      (passed ? e->second.vouched : e->second.contradicted) = true;
    }
  }

  void amounts() {
    const auto sub = cents_of(fields_, "SUBTOTAL"), tax = cents_of(fields_, "GST"),
               total = cents_of(fields_, "TOTAL");
    if (sub && tax && total)
      mark({"SUBTOTAL", "GST", "TOTAL"}, std::llabs(*sub + *tax - *total) <= 1);
    // 10 % on the price before it: one eleventh of the total, within a cent of rounding per line.
    if (tax && total && *tax > 0) mark({"GST", "TOTAL"}, std::llabs(*tax * 11 - *total) <= 11 * 2);
  }

  void line_items() {
    const std::string* q = found(fields_, "QUANTITIES");
    const std::string* p = found(fields_, "PRICES");
    const std::string* d = found(fields_, "DESCRIPTIONS");
    std::vector<std::size_t> counts;
    for (const std::string* v : {q, p, d}) {
      if (v) counts.push_back(items_of(*v).size());
    }
    if (counts.size() >= 2) {
      bool same = true;
      for (const std::size_t c : counts) same = same && c == counts.front();
      mark({"QUANTITIES", "PRICES", "DESCRIPTIONS"}, same);
    }
    // Quantity × price over the items, against the subtotal (or a total without tax).
    if (!q || !p) return;
    const auto qs = items_of(*q), ps = items_of(*p);
    if (qs.size() != ps.size() || qs.empty()) return;
    long long sum = 0;
    for (std::size_t i = 0; i < qs.size(); ++i) {
      char* end = nullptr;
      const long n = std::strtol(qs[i].c_str(), &end, 10);
      const auto price = amount_cents(ps[i]);
      if (end == qs[i].c_str() || *end != '\0' || !price) return;
      sum += n * *price;
    }
    const auto sub = cents_of(fields_, "SUBTOTAL"), total = cents_of(fields_, "TOTAL");
    const bool ties =
        (sub && std::llabs(sum - *sub) <= 1) || (total && std::llabs(sum - *total) <= 1);
    if (sub || total) mark({"QUANTITIES", "PRICES", sub ? "SUBTOTAL" : "TOTAL"}, ties);
  }

  void ids() {
    if (const std::string* abn = found(fields_, "ABN")) mark({"ABN"}, abn_value_ok(*abn));
  }

  void dates() {
    const std::string* issued = found(fields_, "INVOICE_DATE");
    const std::string* due = found(fields_, "DUE_DATE");
    if (issued && due) {
      const auto a = day_number(*issued), b = day_number(*due);
      if (a && b) mark({"INVOICE_DATE", "DUE_DATE"}, *b >= *a && *b - *a <= 372);
    }
    if (const std::string* period = found(fields_, "STATEMENT_PERIOD")) {
      const auto to = period->find(" to ");
      const auto a = to == std::string::npos ? std::nullopt : day_number(period->substr(0, to));
      const auto b = to == std::string::npos ? std::nullopt : day_number(period->substr(to + 4));
      mark({"STATEMENT_PERIOD"}, a && b && *b >= *a && *b - *a <= 372);
    }
  }

  void document_type() {
    const std::string* type = found(fields_, "DOCUMENT_TYPE");
    if (!type) return;
    const bool balance = found(fields_, "OPENING_BALANCE") || found(fields_, "CLOSING_BALANCE");
    const bool total = found(fields_, "TOTAL") != nullptr;
    if (balance == total) return;  // both or neither: the fields say nothing of the type
    mark({"DOCUMENT_TYPE"}, (*type == "BANK STATEMENT") == balance);
  }

  // The payer's name, address or phone read as the seller's own: one of the two was taken from the
  // other party's block, and which one the page does not say (on the generated pages the seller's
  // address was the one read from the payer's block as often as the other way), so both are
  // doubted. Only a contradiction: two different parties say nothing of either. Not on a
  // statement, which has no seller: a business address read there is the holder's own.
  void parties() {
    const std::string* type = found(fields_, "DOCUMENT_TYPE");
    if (type && *type == "BANK STATEMENT") return;
    for (const auto& [payer, seller] : kPartyFields) {  // literals: data() ends in a NUL
      const std::string* a = found(fields_, payer.data());
      const std::string* b = found(fields_, seller.data());
      if (a && b && same_party_value(*a, *b)) mark({payer.data(), seller.data()}, false);
    }
  }

  // A person's name or an address that holds another field's label ("12 George Street, Sydney NSW
  // 2000 Acct 37701471", "Jo Smith Tel"): words of the next column or line were read into it.
  // Labels of four letters or more, so that a street's "St" or a unit's "No" never count.
  void label_bleed() {
    for (const char* name : {"PAYER_NAME", "PAYER_ADDRESS", "BUSINESS_ADDRESS", "ACCOUNT_HOLDER"}) {
      const std::string* value = found(fields_, name);
      if (!value) continue;
      const std::string lowered = lowercase(*value);
      for (const LabelRule& rule : rules_.fields) {
        if (rule.field == name || rule.kind == "none") continue;
        for (const std::string& label : rule.labels) {
          if (label.size() >= 4 && has_words(lowered, label)) {
            mark({name}, false);
            break;
          }
        }
      }
    }
  }

  void email() {
    const std::string* mail = found(fields_, "PAYER_EMAIL");
    if (!mail) return;
    const auto at = mail->find('@');
    const bool one_at =
        at != std::string::npos && at > 0 && mail->find('@', at + 1) == std::string::npos;
    const auto dot = one_at ? mail->find('.', at + 2) : std::string::npos;
    mark({"PAYER_EMAIL"}, one_at && dot != std::string::npos && dot + 1 < mail->size() &&
                              mail->find(' ') == std::string::npos);
  }

 private:
  const Fields& fields_;
  std::map<std::string, Evidence>& evidence_;
  const Rules& rules_;
};

}  // namespace

std::vector<std::string> items_of(const std::string& value) {
  std::vector<std::string> out;
  std::string current;
  const auto flush = [&] {
    const auto b = current.find_first_not_of(' '), e = current.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(current.substr(b, e - b + 1));
    current.clear();
  };
  for (const char c : value) {
    if (c == '|') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return out;
}

void check_page(const Fields& fields, std::map<std::string, Evidence>& evidence,
                const Rules& rules) {
  Checks checks(fields, evidence, rules);
  checks.amounts();
  checks.line_items();
  checks.ids();
  checks.dates();
  checks.document_type();
  checks.parties();
  checks.label_bleed();
  checks.email();
}

bool prices_are_amounts(const std::vector<LineItem>& items, const std::string& prices) {
  const std::vector<std::string> listed = items_of(prices);
  if (listed.size() != items.size()) return false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].amount || amount_cents(listed[i]) != amount_cents(*items[i].amount)) return false;
  }
  return true;
}

bool TableCheck::prices_checked() const {
  if (checked > 0 && off > 0) return false;
  return checked > 0 || (sum && sum->prices && sum->adds_up());
}

TableCheck check_table(const std::vector<LineItem>& items, const Fields& fields) {
  TableCheck out;
  out.rows = items.size();
  if (items.empty()) return out;
  // What the rows come to: each row's amount, or where it prints none, its quantity × unit price
  // (a table of a quantity and a unit price only: samples/); and, beside it, the unit prices alone
  // (a "Price" column that holds the line's amount).
  long long sum = 0, prices = 0;
  bool every_row = true, every_price = true, products = false, counted = false;
  // Cents into `out` where `text` is an amount (plain values, not optionals, which GCC 12 takes for
  // read uninitialised here).
  const auto cents = [](const std::optional<std::string>& text, long long& out) {
    const auto c = text ? amount_cents(*text) : std::nullopt;
    out = c.value_or(0);
    return c.has_value();
  };
  for (const LineItem& item : items) {
    long long printed = 0, unit = 0;
    const bool amount = cents(item.amount, printed), priced = cents(item.unit_price, unit);
    const bool product = priced && item.quantity;
    const long long made = product ? quantity_times(*item.quantity, unit) : 0;
    every_price = every_price && !amount && priced;
    counted = counted || item.quantity.has_value();
    prices += unit;
    every_row = every_row && (amount || product);
    products = products || (!amount && product);
    sum += amount ? printed : made;
    if (amount && product) {
      ++out.checked;
      if (std::llabs(made - printed) > 1) ++out.off;
    }
  }
  const bool subtotal = found(fields, "SUBTOTAL");
  const char* against = subtotal ? "SUBTOTAL" : "TOTAL";
  auto target = cents_of(fields, against);
  // Unit prices are the lines' amounts where rows print no quantity to multiply them by, or where
  // they sum to the total and their products do not.
  bool unit_prices = false;  // the sum is the unit prices alone
  if (target && every_price &&
      (!counted || (std::llabs(sum - *target) > 1 && std::llabs(prices - *target) <= 1))) {
    sum = prices, products = false, every_row = true, unit_prices = true;
  }
  std::string named = against;
  // The other figure rows may come to, taken where they miss the first and come to it: under a
  // subtotal, the total (rows priced with the tax in them, the subtotal before it: "SUBTOTAL
  // 234.00, GST 14.04, TOTAL 248.04" under a row of 248.04); with no subtotal read, the total less
  // the GST (rows priced before tax).
  const auto total = cents_of(fields, "TOTAL"), tax = cents_of(fields, "GST");
  const std::optional<long long> other =
      subtotal ? total : (total && tax ? std::optional<long long>(*total - *tax) : std::nullopt);
  if (target && other && std::llabs(sum - *target) > 1 && std::llabs(sum - *other) <= 1) {
    target = other;
    named = subtotal ? "TOTAL" : "TOTAL less GST";
    if (subtotal) against = "TOTAL";
  }
  if (every_row && target) {
    out.sum = TableCheck::Sum{
        .cents = sum,
        .target = *target,
        .against = against,
        .named = named,
        .products = products,
        .prices = products || unit_prices ||
                  (found(fields, "PRICES") && prices_are_amounts(items, *found(fields, "PRICES")))};
  }
  return out;
}

void check_rows(const std::vector<LineItem>& items, const Fields& fields,
                std::map<std::string, Evidence>& evidence, nlohmann::json& checks) {
  if (items.empty()) return;
  // A receipt's rows that neither add up under them nor each check (find_steps.cpp) vouch for
  // nothing: their sum meeting a figure read elsewhere is chance as often as proof.
  const bool unchecked = checks.is_object() && checks.value("rows_unchecked", false);
  const auto mark = [&](std::initializer_list<const char*> names, bool passed) {
    if (passed && unchecked) return;
    for (const char* name : names) {
      const auto e = evidence.find(name);
      if (e != evidence.end() && found(fields, name))
        (passed ? e->second.vouched : e->second.contradicted) = true;
    }
  };
  const TableCheck t = check_table(items, fields);
  nlohmann::json table = {{"rows", t.rows}};
  if (t.checked > 0) {
    table["products"] = {{"checked", t.checked}, {"off", t.off}};
    mark({"QUANTITIES", "PRICES"}, t.off == 0);
  }
  if (t.sum) {
    char difference[32];
    std::snprintf(difference, sizeof difference, "%.2f",
                  static_cast<double>(t.sum->cents - t.sum->target) / 100.0);
    table["sum"] = format_amount(t.sum->cents, "");
    table["against"] = t.sum->named;
    table["difference"] = difference;
    // The lists the sum is made of besides DESCRIPTIONS (a row missed), which a sum that misses
    // speaks against too (journal/page_arithmetic.h): QUANTITIES where products went into it,
    // PRICES where its figures did.
    nlohmann::json made_of = nlohmann::json::array();
    if (t.sum->products) made_of.push_back("QUANTITIES");
    if (t.sum->prices) made_of.push_back("PRICES");
    table["made_of"] = std::move(made_of);
    mark({"DESCRIPTIONS", t.sum->against.c_str()}, t.sum->adds_up());
    // The products summing to the total vouch for the quantities and unit prices they are made of.
    if (t.sum->products) mark({"QUANTITIES", "PRICES"}, t.sum->adds_up());
  }
  checks["table"] = std::move(table);
}

}  // namespace docsift::ocr
