#include "docsift/journal/page_arithmetic.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "docsift/extract/review_queue.h"

namespace docsift::journal {
namespace {

// "1,234.56": the amount with thousands separators, as the OCR engine writes the table's sum.
std::string money(double amount) {
  char digits[32];
  const int n = std::snprintf(digits, sizeof digits, "%.2f", std::abs(amount));
  const int whole = n - 3;  // the digits before ".NN"
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && i < whole && (whole - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// " 2.49 over" or " 2.49 under", of `off` (what was added up less what it should be).
std::string over_under(double off, const std::string& what) {
  return money(off) + (off > 0 ? " over " : " under ") + what;
}

// More than a cent either way: the engine's own tolerance (a cent of rounding).
bool off_by_more_than_a_cent(double off) { return std::llround(std::abs(off) * 100) > 1; }

void table_checks(const nlohmann::json& checks, std::vector<Disagreement>& out) {
  const auto table = checks.find("table");
  if (table == checks.end() || !table->is_object()) return;
  const auto difference = table->find("difference");
  const auto against = table->find("against");
  const auto sum = table->find("sum");
  if (difference != table->end() && difference->is_string() && against != table->end() &&
      against->is_string() && sum != table->end() && sum->is_string()) {
    const double off = std::strtod(difference->get<std::string>().c_str(), nullptr);
    const std::string field = against->get<std::string>();
    if (off_by_more_than_a_cent(off))
      out.push_back(
          {{"DESCRIPTIONS", field},
           "the rows' amounts sum to " + sum->get<std::string>() + ", " + over_under(off, field),
           true});
  }
  const auto products = table->find("products");
  if (products != table->end() && products->is_object()) {
    const int checked = products->value("checked", 0), off = products->value("off", 0);
    if (off > 0)
      out.push_back({{"QUANTITIES", "PRICES"},
                     "quantity × unit price is not the amount on " + std::to_string(off) + " of " +
                         std::to_string(checked) + " rows",
                     true});
  }
}

}  // namespace

std::vector<Disagreement> page_disagreements(const Record& record) {
  std::vector<Disagreement> out;
  if (record.fields) {
    if (const auto off = extract::sums_difference(*record.fields);
        off && off_by_more_than_a_cent(*off))
      out.push_back(
          {{"SUBTOTAL", "GST", "TOTAL"}, "SUBTOTAL + GST is " + over_under(*off, "TOTAL")});
  }
  if (!record.engine.is_object()) return out;
  const auto checks = record.engine.find("checks");
  if (checks == record.engine.end() || !checks->is_object()) return out;
  table_checks(*checks, out);
  const auto balance = checks->find("balance");
  if (balance != checks->end() && balance->is_boolean() && !balance->get<bool>()) {
    std::string says = "opening balance + transactions is not the closing balance";
    const auto off = checks->find("balance_off");
    if (off != checks->end() && off->is_string())
      says =
          "opening balance + transactions is " +
          over_under(std::strtod(off->get<std::string>().c_str(), nullptr), "the closing balance");
    out.push_back({{"DESCRIPTIONS"}, says, true});
  }
  return out;
}

std::string disagreement_about(const std::vector<Disagreement>& all, const std::string& field) {
  std::string out;
  for (const Disagreement& d : all) {
    for (const std::string& f : d.fields) {
      if (f != field) continue;
      out += (out.empty() ? "" : "; ") + d.says;
      break;
    }
  }
  return out;
}

}  // namespace docsift::journal
