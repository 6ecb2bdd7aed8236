// The field finder's steps in the order they run, and the only writes of what they find: each
// step a const function of the page's facts and of the results before it (findings.h), its
// result taken here. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <array>
#include <string_view>
#include <utility>

namespace docsift::ocr::detail {

void FieldFinder::find(nlohmann::json& checks) {
  // The steps in the order they run (each reads what the ones before found) and what each finds;
  // each lambda runs a const step and writes what it returned, nothing else: a field by take (or
  // repair), the rows' lists whole (they have no one segment), a step's result kept as it is. Any
  // field with labels and a kind in ocr-rules.yaml is found by `labelled`, whatever its name:
  // a new labelled field needs YAML only. The others are found by the step named for them.
  struct Step {
    std::string_view finds;
    void (*run)(FieldFinder& f, nlohmann::json& checks);
  };
  static constexpr std::array<Step, 19> kSteps{{
      {"DOCUMENT_TYPE", [](FieldFinder& f, nlohmann::json& c) { f.take(f.document_type(), c); }},
      {"every labelled field",
       [](FieldFinder& f, nlohmann::json& c) {
         f.labelled = f.labelled_values();
         f.take(f.labelled.fields, c);
       }},
      {"DOCUMENT_TYPE: a statement without a heading",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.statement_without_heading(), c); }},
      {"TOTAL",
       [](FieldFinder& f, nlohmann::json& c) {
         f.total = f.choose_total(f.labelled.payments);
         f.take_total(f.total, c);
       }},
      {"DOCUMENT_TYPE: a receipt without a heading",
       [](FieldFinder& f, nlohmann::json& c) {
         f.take(f.receipt_without_heading(f.labelled.payments), c);
       }},
      {"INVOICE_DATE without a label",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.date_by_position(f.labelled), c); }},
      {"INVOICE_DATE whose year was misread",
       [](FieldFinder& f, nlohmann::json& c) { f.repair(f.date_from_twin(), c); }},
      {"ABN without a label",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.abn_by_checksum(), c); }},
      {"DESCRIPTIONS, QUANTITIES, PRICES",
       [](FieldFinder& f, nlohmann::json& c) {
         f.rows = f.line_items();
         if (f.rows.unchecked) c["rows_unchecked"] = true;  // the review queue's "rows disagree"
         for (const auto& [list, value] : f.rows.lists) {
           Evidence e = f.rows.evidence;
           e.contradicted = e.contradicted || doubted(f.rows, list);
           f.found[list] = {value, std::nullopt, e};  // no one segment
         }
       }},
      {"where the payer's lines are",
       [](FieldFinder& f, nlohmann::json&) { f.payer = f.payer_of(); }},
      {"the names in web and email addresses",
       [](FieldFinder& f, nlohmann::json&) { f.domains = f.domain_names(); }},
      {"SUPPLIER",
       [](FieldFinder& f, nlohmann::json& c) {
         f.seller = f.supplier();
         f.take(f.seller.found, c);
       }},
      {"BUSINESS_ADDRESS",
       [](FieldFinder& f, nlohmann::json& c) {
         Address address = f.business_address(f.seller);
         if (f.take(address.finding, c)) f.address_segments = std::move(address.segments);
       }},
      {"BUSINESS_PHONE, PAYER_ADDRESS, PAYER_EMAIL, PAYER_PHONE, SUPPLIER_WEBSITE",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.contacts(), c); }},
      {"BUSINESS_ADDRESS, PAYER_ADDRESS: the home region misread",
       [](FieldFinder& f, nlohmann::json& c) {
         for (const Finding& mend : f.home_regions()) f.repair(mend, c);
       }},
      {"BANK_NAME, ACCOUNT_HOLDER under a payer's label",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.bank_name(), c); }},
      {"SUBTOTAL by the sums",
       [](FieldFinder& f, nlohmann::json& c) { f.take(f.subtotal_by_sums(), c); }},
      {"checks.sum", [](FieldFinder& f, nlohmann::json& c) { c["sum"] = f.sum_check(); }},
      {"checks.balance",
       [](FieldFinder& f, nlohmann::json& c) { f.take_balance_check(f.balance_check(f.rows), c); }},
  }};
  for (const Step& step : kSteps) step.run(*this, checks);
}

bool FieldFinder::take(const std::optional<Finding>& finding, nlohmann::json& checks) {
  if (!finding || found.count(finding->field)) return false;
  found[finding->field] = {finding->value, finding->at, finding->noted};
  if (finding->check) checks[finding->check] = true;
  return true;
}

void FieldFinder::repair(const std::optional<Finding>& finding, nlohmann::json& checks) {
  const auto it = finding ? found.find(finding->field) : found.end();
  if (it == found.end()) return;
  it->second.value = finding->value;
  it->second.at = finding->at;
  if (finding->noted.repaired) it->second.noted.repaired = true;
  if (finding->check) checks[finding->check] = true;
}

}  // namespace docsift::ocr::detail
