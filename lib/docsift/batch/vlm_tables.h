// The tables a model wrote (extraction.tables: true) into a record: each of the schema's tables
// that applies to the page's document type read from its line of the answer (extract/tables.h)
// into line_items, and the three list fields made from those rows, so that their items always
// line up (docs/decoding.md, "Tables").
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "docsift/extract/schema.h"
#include "docsift/journal/record.h"

namespace docsift::batch {

// The tables' lines as values beside the fields' (table name → its line after the key), for the
// confidences of the values the model wrote.
std::map<std::string, std::string> table_values(const extract::FieldSchema& schema,
                                                std::string_view answer);

// `record.fields` holds the page's values (DOCUMENT_TYPE among them); `confidence` the
// confidences of those values and of the tables' lines (table_values). A list made from a table's
// rows takes the table's confidence; the tables' own entries leave `confidence`. A table line that
// is not JSON rows leaves line_items empty and says why in `record.warning`.
void record_tables(const extract::FieldSchema& schema, std::string_view answer,
                   journal::Record& record, std::map<std::string, double>& confidence);

}  // namespace docsift::batch
