#include "docsift/batch/vlm_tables.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "docsift/extract/response_parser.h"
#include "docsift/extract/tables.h"

namespace docsift::batch {
namespace {

std::optional<std::string> cell(const extract::TableRow& row, const char* column) {
  const auto it = row.find(column);
  return it != row.end() ? std::optional<std::string>(it->second) : std::nullopt;
}

// "a | b | c" of the rows' `pick`, "N/A" when no row has one; items a row lacks are left out.
template <class Pick>
std::string joined(const std::vector<journal::Record::LineItem>& items, Pick pick) {
  std::string out;
  for (const auto& item : items) {
    if (const std::optional<std::string> v = pick(item)) out += (out.empty() ? "" : " | ") + *v;
  }
  return out.empty() ? "N/A" : out;
}

}  // namespace

std::map<std::string, std::string> table_values(const extract::FieldSchema& schema,
                                                std::string_view answer) {
  std::vector<std::string> names;
  for (const extract::TableSpec& t : schema.tables) names.push_back(t.name);
  return names.empty() ? std::map<std::string, std::string>{}
                       : extract::parse_response(answer, names);
}

void record_tables(const extract::FieldSchema& schema, std::string_view answer,
                   journal::Record& record, std::map<std::string, double>& confidence) {
  std::optional<double> table_confidence;
  for (const extract::TableSpec& t : schema.tables) {
    if (const auto c = confidence.find(t.name); c != confidence.end()) {
      table_confidence = table_confidence ? std::min(*table_confidence, c->second) : c->second;
      confidence.erase(c);
    }
  }
  if (schema.tables.empty() || !record.fields) return;
  const auto type = record.fields->find(std::string(extract::kDocumentTypeField));
  const std::string document_type = type != record.fields->end() ? type->second : "";
  std::vector<journal::Record::LineItem> items;
  for (const extract::TableSpec& table : schema.tables) {
    if (!table.applies(document_type)) continue;
    const extract::ParsedTable parsed = extract::parse_table(answer, table);
    if (!parsed.problem.empty()) {
      const std::string note = table.name + ": " + parsed.problem + "; no rows read";
      record.warning = record.warning ? *record.warning + "; " + note : note;
    }
    for (const extract::TableRow& row : parsed.rows) {
      journal::Record::LineItem item;
      item.description = cell(row, "description").value_or("");
      item.quantity = cell(row, "quantity");
      item.unit_price = cell(row, "unit_price");
      item.amount = cell(row, "amount");
      item.date = cell(row, "date");
      item.debit = cell(row, "debit");
      item.credit = cell(row, "credit");
      item.balance = cell(row, "balance");
      items.push_back(std::move(item));  // box {0, 0, 0, 0}: a model gives no place on the page
    }
  }
  if (items.empty()) return;
  // The lists from the rows: one description per row, the quantities and prices the rows give
  // (a row's unit price, else its amount).
  auto& fields = *record.fields;
  const auto set = [&](const char* name, const std::string& value) {
    const extract::Field* field = schema.find(name);
    if (field == nullptr || !field->applies(document_type)) return;
    fields[name] = value;
    if (table_confidence && !extract::is_missing(value))
      confidence[name] = *table_confidence;
    else
      confidence.erase(name);
  };
  set("DESCRIPTIONS", joined(items, [](const auto& i) {
        return i.description.empty() ? std::nullopt : std::optional<std::string>(i.description);
      }));
  set("QUANTITIES", joined(items, [](const auto& i) { return i.quantity; }));
  set("PRICES",
      joined(items, [](const auto& i) { return i.unit_price ? i.unit_price : i.amount; }));
  record.line_items = std::move(items);
}

}  // namespace docsift::batch
