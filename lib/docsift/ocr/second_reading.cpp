// Where a page is read a second time, evened out (Engine::read; engine.h): which pages are, and
// how the two readings merge, a table taken whole from one of them.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "docsift/ocr/engine.h"

namespace docsift::ocr {

namespace {

// The lists a table's rows make, in the order in which they decide whose table is taken.
constexpr const char* kTableLists[] = {"DESCRIPTIONS", "PRICES", "QUANTITIES"};

// Whether `reading`'s own checks vouch for its `name` (FieldFinder::balance_check).
bool vouched(const Engine::Result& reading, const std::string& name) {
  const auto e = reading.evidence.find(name);
  return e != reading.evidence.end() && e->second.vouched;
}

// Whether the second reading's `name`, read apart from the first's, is taken: the first left it
// N/A (filled), the second is `clearer`, or it read it more confidently than the first (`held`:
// take_second_reading's `tesseract`). Never where the first reading's own checks vouch for the
// value and the second's do not (a statement's balances and transactions that add up): a
// surer-looking "$5,269.98" had replaced an opening balance of $5,209.98 that its rows added up
// from. (A total its sums agree with is held by its confidence of 100 instead, as the first
// reading had it before the rereading: a total the sums repaired there, "105.00" for a printed
// 165.00, is no proof.)
bool second_wins(const Engine::Result& first, const Engine::Result& second, bool clearer,
                 const std::map<std::string, double>& held, const std::string& name) {
  if (value_or_na(second, name) == "N/A") return false;
  if (vouched(first, name) && !vouched(second, name)) return false;
  if (value_or_na(first, name) == "N/A" || clearer) return true;
  const auto before = held.find(name);
  const auto now = second.confidence.find(name);
  return before != held.end() && now != second.confidence.end() && now->second > before->second;
}

// A table is one reading's: its rows, their checks and the three lists they make, so that
// line_items.csv and the lists always say the same. The second reading's table is taken whole
// where the first list the readings read apart (kTableLists' order) is the second's by
// second_wins, or where the first reading's rows neither add up nor each check and the second
// read rows that do (find_steps.cpp: rows_unchecked): none would, however sure; no rows at all
// would lose the rows read right beside the misread one. What changed is said in `taken`.
void take_second_table(Engine::Result& first, const Engine::Result& second, bool clearer,
                       const std::map<std::string, double>& held, Taken& taken) {
  const char* lead = nullptr;
  for (const char* list : kTableLists) {
    if (value_or_na(first, list) != value_or_na(second, list)) {
      lead = list;
      break;
    }
  }
  if (!lead) return;  // read alike, or by neither
  const bool rows_give_way =
      rows_unchecked(first) && !second.items.empty() && !rows_unchecked(second);
  if (!rows_give_way && !second_wins(first, second, clearer, held, lead)) return;
  for (const char* list : kTableLists) {
    const std::string before = value_or_na(first, list), after = value_or_na(second, list);
    if (!first.fields.count(list) && !second.fields.count(list)) continue;  // not asked for
    if (before != after) {
      auto& said = after == "N/A" ? taken.emptied : before == "N/A" ? taken.filled : taken.surer;
      said.push_back(list);
    }
    put_reading(first, second, list, &Evidence::second_taken, before != after);
  }
  first.items = second.items;
  take_rows_checks(first, second);
}

}  // namespace

bool wants_second_reading(const Engine::Result& first) {
  const auto doubtful = [&](const char* field, double below) {
    const auto sure = first.confidence.find(field);
    return unread(first, field) ||
           (first.fields.count(field) && sure != first.confidence.end() && sure->second < below);
  };
  // A statement has no total or invoice date; its own keys are its period, its balances and its
  // account's number.
  if (value_or_na(first, "DOCUMENT_TYPE") == "BANK STATEMENT") {
    return unread(first, "STATEMENT_PERIOD") || unread(first, "OPENING_BALANCE") ||
           unread(first, "CLOSING_BALANCE") || unread(first, "BANK_ACCOUNT_NUMBER");
  }
  return doubtful("TOTAL", kDoubtful) || doubtful("INVOICE_DATE", kDoubtful) ||
         doubtful("SUPPLIER", kDoubtfulName);
}

Taken take_second_reading(Engine::Result& first, const Engine::Result& second, bool clearer,
                          const std::map<std::string, double>* tesseract) {
  Taken taken;
  const std::map<std::string, double>& held = tesseract ? *tesseract : first.confidence;
  std::set<std::string> agreed;  // read the same by both readings
  for (const auto& [name, value] : first.fields) {
    const auto it = second.fields.find(name);
    if (value != "N/A" && it != second.fields.end() && it->second == value) agreed.insert(name);
  }
  for (auto& [name, value] : first.fields) {
    if (std::ranges::find(kTableLists, name) != std::end(kTableLists) ||
        value_or_na(second, name) == value || !second_wins(first, second, clearer, held, name))
      continue;
    (value == "N/A" ? taken.filled : taken.surer).push_back(name);
    put_reading(first, second, name, &Evidence::second_taken, true);
  }
  take_second_table(first, second, clearer, held, taken);
  std::sort(taken.filled.begin(), taken.filled.end());  // in the fields' order, as the record
  std::sort(taken.surer.begin(), taken.surer.end());    // lists them
  std::sort(taken.emptied.begin(), taken.emptied.end());
  for (auto& [name, e] : first.evidence) {
    e.second_read = true;
    e.second_agreed = agreed.count(name) > 0;
  }
  // What either reading's printed sums make vouches for the total: a tax row read right in one
  // reading only (the 200's 553: "16.98 1.02" first, "16.28 1.02" evened out).
  first.sums.insert(first.sums.end(), second.sums.begin(), second.sums.end());
  if (first.registration.empty()) first.registration = second.registration;  // likewise
  return taken;
}

}  // namespace docsift::ocr
