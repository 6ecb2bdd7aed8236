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

// A count the checks hold, 0 where it is absent or not a whole number (a journal edited by hand).
int count_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// The string at `key`, empty where it is absent or not a string.
std::string text_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// More than a cent either way: the engine's own tolerance (a cent of rounding).
bool off_by_more_than_a_cent(double off) { return std::llround(std::abs(off) * 100) > 1; }

// engine.checks, when the record has it as an object.
const nlohmann::json* checks_of(const Record& record) {
  if (!record.engine.is_object()) return nullptr;
  const auto checks = record.engine.find("checks");
  return checks != record.engine.end() && checks->is_object() ? &*checks : nullptr;
}

const nlohmann::json* table_of(const nlohmann::json& checks) {
  const auto table = checks.find("table");
  return table != checks.end() && table->is_object() ? &*table : nullptr;
}

// A receipt's rows read without a heading that neither add up to a figure printed under them nor
// each check (engine.checks.rows_unchecked, docs/ocr.md).
bool rows_unchecked(const nlohmann::json& checks) {
  const auto it = checks.find("rows_unchecked");
  return it != checks.end() && it->is_boolean() && it->get<bool>();
}

// `balanced`: a statement whose transactions take its opening balance to its closing one; its rows
// are not a bill's, and a subtotal or total read on it says nothing against them.
void table_checks(const nlohmann::json& table, bool balanced, std::vector<Disagreement>& out) {
  const std::string difference = text_of(table, "difference"), against = text_of(table, "against"),
                    sum = text_of(table, "sum");
  if (!balanced && !difference.empty() && !against.empty() && !sum.empty()) {
    const double off = std::strtod(difference.c_str(), nullptr);
    if (off_by_more_than_a_cent(off)) {
      // DESCRIPTIONS (a row missed), and the lists whose figures the sum is made of
      // (`made_of`: PRICES, QUANTITIES), any of which may hold the misread one; for a sum over its
      // figure, a journal written before `made_of` names DESCRIPTIONS alone. A sum under its
      // figure may have missed a row, which every list of the rows then misses too: QUANTITIES
      // and PRICES are named whatever the sum is made of (a receipt's amount column, its unit
      // prices a list of their own).
      std::vector<std::string> fields{"DESCRIPTIONS", against};
      if (off < 0) fields.insert(fields.end(), {"QUANTITIES", "PRICES"});
      const auto made_of = table.find("made_of");
      if (off >= 0 && made_of != table.end() && made_of->is_array()) {
        for (const auto& list : *made_of) {
          if (list == "QUANTITIES" || list == "PRICES") fields.push_back(list.get<std::string>());
        }
      }
      out.push_back({std::move(fields),
                     "the rows' amounts sum to " + sum + ", " + over_under(off, against), true});
    }
  }
  const auto products = table.find("products");
  if (products != table.end() && products->is_object()) {
    const int checked = count_of(*products, "checked"), off = count_of(*products, "off");
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
        off && extract::sums_disagree(*record.fields))
      out.push_back(
          {{"SUBTOTAL", "GST", "TOTAL"}, "SUBTOTAL + GST is " + over_under(*off, "TOTAL")});
  }
  const nlohmann::json* checks = checks_of(record);
  if (!checks) return out;
  const std::string balanced = text_of(*checks, "balance");
  if (const nlohmann::json* table = table_of(*checks))
    table_checks(*table, balanced == "sum" || balanced == "running", out);
  // Rows that neither add up nor each check: a figure of them misread, whichever.
  if (rows_unchecked(*checks))
    out.push_back({{"DESCRIPTIONS", "QUANTITIES", "PRICES"},
                   "the rows' amounts add up to no figure printed under them, and quantity × unit "
                   "price is not the amount on every row",
                   true});
  const auto balance = checks->find("balance");
  if (balance != checks->end() && balance->is_boolean() && !balance->get<bool>()) {
    const std::string off = text_of(*checks, "balance_off");
    // Any of them may be the misread one: the transactions, or either balance.
    out.push_back({{"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"},
                   off.empty()
                       ? "opening balance + transactions is not the closing balance"
                       : "opening balance + transactions is " +
                             over_under(std::strtod(off.c_str(), nullptr), "the closing balance"),
                   true});
  }
  return out;
}

std::vector<std::string> table_agreements(const Record& record) {
  std::vector<std::string> out;
  const nlohmann::json* checks = checks_of(record);
  if (!checks) return out;
  if (const nlohmann::json* table = table_of(*checks)) {
    // Rows that neither add up under them nor each check (`rows_unchecked`) can meet a TOTAL read
    // elsewhere by chance (one row that is the total line misread): the page's checks take no
    // word of theirs (docs/confidence.md), and neither does the report.
    const std::string difference = text_of(*table, "difference");
    if (!rows_unchecked(*checks) && !difference.empty() &&
        !off_by_more_than_a_cent(std::strtod(difference.c_str(), nullptr)))
      out.push_back("the rows' amounts sum to the page's " + text_of(*table, "against"));
    const auto products = table->find("products");
    if (products != table->end() && products->is_object() && count_of(*products, "off") == 0 &&
        count_of(*products, "checked") > 0)
      out.push_back("quantity × unit price is the amount on every row that prints all three");
  }
  const std::string balance = text_of(*checks, "balance");
  if (balance == "sum") out.push_back("opening balance + transactions = closing balance");
  if (balance == "running") out.push_back("the last running balance is the closing balance");
  return out;
}

std::set<std::string> table_disagreement_fields(const Record& record) {
  std::set<std::string> out;
  for (const Disagreement& d : page_disagreements(record)) {
    if (d.of_table) out.insert(d.fields.begin(), d.fields.end());
  }
  return out;
}

extract::PageDoubts page_doubts(const Record& record) {
  extract::PageDoubts out{table_disagreement_fields(record), {}};
  if (!record.agreement) return out;
  for (const auto& [field, a] : *record.agreement) {
    if (a.disputed && !entry(record.corrections, field)) out.pages_off.insert(field);
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
