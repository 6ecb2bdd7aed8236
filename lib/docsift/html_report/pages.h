// The report's HTML: a document's page (the page image with its boxes beside the fields) and the
// index (the run's summary, the scores and curves with --truth, the documents worst first). Each
// returns the whole file; every string from a record, a file name or the truth is escaped here
// (html.h: escape), and nothing links outside the report's folder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/html_report/document.h"
#include "docsift/journal/record.h"

namespace docsift::html_report {

// What a document's page shows besides its record and fields.
struct DocumentPage {
  const Entry* entry = nullptr;
  int documents = 0;                // in the report
  const Entry* previous = nullptr;  // in the index's order; nullptr at either end
  const Entry* next = nullptr;
  bool image = false;                     // img/dNNNN.jpg was written
  int image_width = 0, image_height = 0;  // the thumbnail's
  bool full_image = false;                // img/dNNNN.full.jpg was written
  std::string image_problem;              // why there is no image
  bool truth = false, baseline = false;   // which columns the fields table has
  std::string nonce;
};
std::string document_page(const journal::Record& record, const std::vector<FieldView>& fields,
                          const DocumentPage& page);

// What the index shows.
struct Index {
  std::string run;                          // the run's folder as given
  std::string generated_at;                 // RFC 3339
  std::optional<journal::Summary> summary;  // summary.json, when the run wrote one
  journal::Summary totals;                  // from the journal's latest records (journal/totals.h)
  std::vector<const Entry*> documents;      // worst first
  std::vector<std::string> fields;          // the schema's, for the field filter
  std::string truth_label, baseline_label;  // the files given; empty without
  const eval::Evaluation* evaluation = nullptr;
  const eval::Evaluation* baseline_evaluation = nullptr;
  const eval::ConfidenceEvaluation* confidence = nullptr;
  extract::ReviewThresholds thresholds;  // marked on the curves
  int images_missing = 0;                // documents shown without their page image
  std::string nonce;
};
std::string index_page(const Index& index);

// The review queue over every document: each queued value once, in rising confidence (values with
// none first), with its page, field, value, confidence, threshold and reason, each linking to its
// row on the document's page (queue.html, beside index.html).
inline constexpr std::string_view kQueue = "queue.html";
std::string queue_page(const std::vector<const Entry*>& documents, const std::string& run,
                       const std::string& nonce);

// One risk–coverage curve as inline SVG: accuracy of the values accepted against the share
// accepted, from the most confident value down, with the review threshold in force marked.
std::string risk_coverage_svg(const eval::ConfidenceGroup& group, std::optional<double> threshold);

}  // namespace docsift::html_report
