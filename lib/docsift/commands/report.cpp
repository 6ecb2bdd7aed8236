#include "docsift/commands/report.h"

#include "docsift/extract/schema.h"
#include "docsift/format.h"
#include "docsift/html_report/report.h"

namespace docsift::commands {

void report(const ReportRequest& o, const config::Config& cfg, const batch::Log& log) {
  html_report::ReportOptions options;
  options.run = o.run;
  options.out = o.out;
  if (!o.truth.empty()) options.truth = o.truth;
  if (!o.baseline.empty()) options.baseline = o.baseline;
  options.pages.assign(o.pages.begin(), o.pages.end());
  options.schema = extract::load_field_schema(cfg.extraction.fields);
  options.rules = cfg.eval;
  options.thresholds = cfg.review.thresholds();
  options.images.max_side = o.max_side;
  options.images.full = o.full_pages;
  options.jobs = o.jobs;
  const html_report::ReportResult r = html_report::write_report(options);
  if (r.images_missing > 0) {
    std::string examples;
    for (const std::string& e : r.missing_examples) examples += "; " + e;
    log.warning("images", std::to_string(r.images_missing) + " of " + std::to_string(r.documents) +
                              " documents are shown without their page image" + examples);
  }
  log.info("report", "wrote " + r.index.string() + ": " + std::to_string(r.documents) +
                         " documents (" + std::to_string(r.failed) + " failed), " +
                         std::to_string(r.images) + " page images, " + human_bytes(r.bytes));
}

}  // namespace docsift::commands
