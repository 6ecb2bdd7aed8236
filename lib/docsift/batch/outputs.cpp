#include "docsift/batch/outputs.h"

#include <algorithm>
#include <cstdio>

#include "docsift/batch/agreement.h"
#include "docsift/extract/field.h"
#include "docsift/extract/review_queue.h"
#include "docsift/io/csv.h"
#include "docsift/io/page_name.h"
#include "docsift/journal/page_arithmetic.h"
#include "docsift/ocr/known_names.h"
#include "docsift/text/utf8.h"

namespace docsift::batch {

std::string display_name(const std::string& bytes) {
  if (text::find_invalid_utf8(bytes) == text::kNoError) return bytes;
  std::string out;
  text::append_utf8_lossy(out, bytes);
  return out;
}

RecordName record_name(const std::string& relative) {
  if (text::find_invalid_utf8(relative) == text::kNoError) return {relative, std::nullopt};
  std::string escaped;
  for (const unsigned char c : relative) {
    if (c < 0x20 || c >= 0x7f || c == '%') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      escaped += hex;
    } else {
      escaped += static_cast<char>(c);
    }
  }
  return {display_name(relative), escaped};
}

std::string csv_header(const std::vector<std::string>& fields) {
  std::string header = "image_file";
  for (const auto& f : fields) header += ',' + io::csv_field(f);
  return header + "\n";
}

std::string csv_row(const Record& record, const std::vector<std::string>& fields) {
  if (!record.ok()) return "";
  std::string line = io::csv_field(record.file_bytes ? *record.file_bytes : record.file);
  for (const auto& f : fields) {
    const std::string* value = journal::entry(record.fields, f);
    line += ',' + io::csv_field(value ? *value : "N/A");
  }
  return line + "\n";
}

std::string DocumentRows::add(const Record& record) {
  if (!record.document) {
    before_.reset();
    return csv_row(record, fields_);
  }
  const std::string file(io::file_of(record.key()));
  const auto held = pending_.find(file);
  before_.emplace(file,
                  held == pending_.end() ? std::nullopt : std::optional<Pending>(held->second));
  Pending& doc = pending_[file];
  doc.document = *record.document;
  auto& page = doc.pages[io::page_of(record.key())];
  page.reset();
  if (record.ok())
    page = extract::PageValues{record.fields.value_or(std::map<std::string, std::string>{}),
                               record.confidence.value_or(std::map<std::string, double>{})};
  const bool complete = static_cast<int>(doc.pages.size()) == doc.document.pages &&
                        std::all_of(doc.pages.begin(), doc.pages.end(),
                                    [](const auto& p) { return p.second.has_value(); });
  if (!complete) return "";
  std::vector<extract::PageValues> pages;
  for (const auto& [number, values] : doc.pages) pages.push_back(*values);
  Record whole;
  whole.status = Record::Status::Ok;
  whole.file = std::string(io::file_of(record.file));
  if (record.file_bytes) whole.file_bytes = std::string(io::file_of(*record.file_bytes));
  whole.fields = extract::document_values(pages, doc.document.rules).fields;
  pending_.erase(file);
  return csv_row(whole, fields_);
}

void DocumentRows::undo() {
  if (!before_) return;
  auto& [file, held] = *before_;
  if (held) {
    pending_[file] = std::move(*held);
  } else {
    pending_.erase(file);
  }
  before_.reset();
}

std::string confidence_row(const Record& record, const std::vector<std::string>& fields) {
  if (!record.ok()) return "";
  std::string line = io::csv_field(record.file_bytes ? *record.file_bytes : record.file);
  for (const auto& f : fields) {
    line += ',';
    if (!record.confidence) continue;
    const double* sure = journal::entry(record.confidence, f);
    // N/A has a confidence only where the engine judged the value absent from the page.
    if (!journal::entry(record.fields, f) || !sure) continue;
    char cell[32];
    std::snprintf(cell, sizeof cell, "%.4f", *sure);
    line += cell;
  }
  return line + "\n";
}

std::string line_items_header() {
  return "image_file,row,description,quantity,unit_price,amount,date,debit,credit,balance,"
         "confidence,x,y,width,height\n";
}

std::string line_item_rows(const Record& record) {
  if (!record.ok() || !record.line_items) return "";
  std::string out;
  int n = 0;
  for (const auto& item : *record.line_items) {
    std::string line = io::csv_field(record.file_bytes ? *record.file_bytes : record.file) + ',' +
                       std::to_string(++n) + ',' + io::csv_field(item.description);
    for (const auto* cell : {&item.quantity, &item.unit_price, &item.amount, &item.date,
                             &item.debit, &item.credit, &item.balance}) {
      line += ',' + (*cell ? io::csv_field(**cell) : std::string());
    }
    line += ',';
    if (item.confidence) {
      char cell[16];
      std::snprintf(cell, sizeof cell, "%.4f", *item.confidence);
      line += cell;
    }
    for (const int v : item.box) line += ',' + std::to_string(v);
    out += line + "\n";
  }
  return out;
}

std::string review_header() {
  return "image_file,field,value,confidence,threshold,reason,check,x,y,width,height,corrected\n";
}

std::string review_rows(const Record& record) {
  if (!record.ok() || !record.review) return "";
  std::string out;
  const std::vector<journal::Disagreement> disagreements = journal::page_disagreements(record);
  for (const auto& field : *record.review) {
    std::string line = io::csv_field(record.file_bytes ? *record.file_bytes : record.file) + ',' +
                       io::csv_field(field);
    const std::string* value = journal::entry(record.fields, field);
    line += ',' + io::csv_field(value ? *value : "N/A");
    for (const double* number : {journal::entry(record.confidence, field),
                                 journal::entry(record.review_thresholds, field)}) {
      line += ',';
      if (!number) continue;
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.4f", *number);
      line += cell;
    }
    const std::string* why = journal::entry(record.review_reasons, field);
    // Older journals say no reason: theirs was always the confidence.
    line += ',' + io::csv_field(
                      why ? *why : std::string(to_string(extract::ReviewReason::kLowConfidence)));
    std::string check = journal::disagreement_about(disagreements, field);
    // A value the run respelled as other pages read it, or completed as the pages printing its
    // registration number read it (agreement.h): the reviewer sees what this page itself read; one
    // they read otherwise: what they read.
    const auto add = [&check](const std::string& says) {
      check += std::string(check.empty() ? "" : "; ") + says;
    };
    if (const Record::Agreement* a = journal::entry(record.agreement, field)) {
      if (a->read_value) {
        const bool completed =
            a->registration && value && holds_in_part(ocr::words_key(*value), a->key);
        add("this page read \"" + *a->read_value + "\"; " +
            (completed ? "completed as the pages printing its registration number read it"
                       : "respelled as other pages read it"));
      }
      if (a->disputed) add("other pages read \"" + *a->disputed + "\"");
    }
    line += ',' + io::csv_field(check);
    if (const std::array<int, 4>* box = journal::entry(record.boxes, field)) {
      for (const int v : *box) line += ',' + std::to_string(v);
    } else {
      line += ",,,,";  // a model's value (or a missing one) has no box on the page
    }
    out += line + ",\n";  // corrected: the person's to fill in
  }
  return out;
}

void mark_review(Record& record, const config::ReviewConfig& review,
                 const extract::FieldSchema& schema) {
  if (!record.ok() || !record.confidence || !record.fields) return;
  // The rule eval predicts the queue by from the same values (eval/confidence.cpp), so the two
  // agree.
  const auto queue = extract::review_queue(schema, *record.fields, *record.confidence,
                                           review.thresholds(), journal::page_doubts(record));
  record.review.emplace();
  record.review_reasons.emplace();
  record.review_thresholds.emplace();
  for (const extract::QueuedValue& q : queue) {
    record.review->push_back(q.field);
    (*record.review_reasons)[q.field] = std::string(to_string(q.reason));
    if (q.threshold) (*record.review_thresholds)[q.field] = *q.threshold;
  }
}

}  // namespace docsift::batch
