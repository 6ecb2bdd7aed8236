// The report's index (pages.h): the run's summary, the scores and risk–coverage curves with
// --truth, and every document worst first, with filters (a script shows them; without one the
// list is still there, in order).
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "docsift/html_report/html.h"
#include "docsift/html_report/pages.h"

namespace docsift::html_report {
namespace {

std::string fact(const std::string& label, const std::string& value, const std::string& css = "") {
  return "<div>" + label + "<b" + (css.empty() ? "" : " class=\"" + css + "\"") + ">" + value +
         "</b></div>";
}

// The run's summary: the pages and their outcome, the tiers, the review queue and the throughput.
std::string run_summary(const Index& x) {
  const journal::Summary& t = x.totals;
  std::string out = "<h2 id=\"run\">Run</h2><div class=\"facts\" id=\"run-facts\">";
  out += fact("documents", std::to_string(x.documents.size()));
  out += fact("ok", std::to_string(t.ok));
  out += fact("failed", std::to_string(t.failed), t.failed > 0 ? "failed" : "");
  if (x.summary && (x.summary->gone > 0 || x.summary->pending > 0)) {
    out += fact("gone", std::to_string(x.summary->gone)) +
           fact("pending", std::to_string(x.summary->pending));
  }
  if (t.review) {
    out += fact("fields to review", std::to_string(t.review->fields_to_review),
                t.review->fields_to_review > 0 ? "review" : "");
    out += fact("pages with nothing to review", std::to_string(t.review->pages_accepted));
  }
  if (t.seconds_per_image > 0) {
    out += fact("seconds a page", fixed(t.seconds_per_image, 2));
    out += fact("pages a second", fixed(1.0 / t.seconds_per_image, 2));
  }
  if (x.summary && x.summary->wall_seconds_this_run > 0 && x.summary->this_run > 0) {
    out += fact("wall time (last run)", seconds(x.summary->wall_seconds_this_run));
  }
  out += "</div>\n<p>";
  std::string tiers;
  for (const auto& [tier, n] : t.tiers)
    tiers += (tiers.empty() ? "" : ", ") + escape(tier) + " " + std::to_string(n);
  if (!tiers.empty()) out += "Tiers: " + tiers + ". ";
  if (x.summary) {
    const journal::Summary& s = *x.summary;
    if (!s.engine.empty()) out += "Engine: " + escape(s.engine) + ". ";
    if (!s.model.empty()) out += "Model: <span class=\"name\">" + escape(s.model) + "</span>. ";
    if (!s.device.empty()) out += "Device: " + escape(s.device) + ". ";
    if (!s.docsift_version.empty()) out += "docsift " + escape(s.docsift_version) + ". ";
    if (!s.finished_at.empty()) out += "Finished " + escape(s.finished_at) + ". ";
  } else {
    out += "The run wrote no summary.json (it may have stopped); the figures are the journal's. ";
  }
  if (x.images_missing > 0) {
    out += "<span class=\"review\">" + std::to_string(x.images_missing) +
           " documents are shown without their page image</span> (docs/report.md, \"Page images\": "
           "--pages DIR).";
  }
  return out + "</p>\n";
}

std::string counts_by_type(const Index& x) {
  // The types read, and with the truth its types too (a type read that the truth spells otherwise
  // is a row of its own, with no accuracy).
  std::map<std::string, std::pair<int, int>> types;  // type → documents, failed
  for (const Entry* e : x.documents) {
    auto& c = types[e->type];
    ++c.first;
    c.second += e->failed() ? 1 : 0;
  }
  if (x.evaluation != nullptr) {
    for (const auto& [type, accuracy] : x.evaluation->document_type_accuracy)
      types.emplace(type, std::pair<int, int>{0, 0});
  }
  std::string out =
      "<h2 id=\"types-heading\">Document types</h2><table id=\"types\"><thead><tr><th>type</th><th "
      "class=\"n\">documents</th><th class=\"n\">failed</th>";
  if (x.evaluation != nullptr) out += "<th class=\"n\">accuracy (by the truth's type)</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& [type, c] : types) {
    out += "<tr><td>" +
           (type.empty() ? std::string("<span class=\"na\">none read</span>") : escape(type)) +
           "</td><td class=\"n\">" + std::to_string(c.first) + "</td><td class=\"n\">" +
           std::to_string(c.second) + "</td>";
    if (x.evaluation != nullptr) {
      const auto it = x.evaluation->document_type_accuracy.find(type);
      out += "<td class=\"n\">" +
             (it == x.evaluation->document_type_accuracy.end() ? "" : fixed(it->second)) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string bar(double share) {
  return "<span class=\"bar\" style=\"width:" + fixed(std::clamp(share, 0.0, 1.0) * 80, 0) +
         "px\"></span>";
}

// Per-field scores against the truth, with the baseline's beside them.
std::string scores(const Index& x) {
  const eval::Evaluation& e = *x.evaluation;
  const eval::Evaluation* b = x.baseline_evaluation;
  std::string out = "<h2 id=\"scores-heading\">Scores against " + escape(x.truth_label) +
                    "</h2>\n<div class=\"facts\" id=\"score-facts\">" +
                    fact("overall accuracy", fixed(e.overall)) + fact("F1", fixed(e.counts.f1())) +
                    fact("median document", fixed(e.image_median)) +
                    fact("coverage", percent(e.coverage()));
  if (b != nullptr) out += fact("baseline accuracy", fixed(b->overall));
  out +=
      "</div>\n<table id=\"scores\"><thead><tr><th>field</th><th class=\"n\">accuracy</th><th "
      "class=\"n\">precision</th><th class=\"n\">recall</th><th class=\"n\">F1</th><th "
      "class=\"n\">below 1</th>";
  if (b != nullptr) out += "<th class=\"n\">baseline</th><th class=\"n\">change</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::string& field : e.fields) {
    const auto scored = e.field_accuracy.find(field);
    const auto counted = e.field_counts.find(field);
    if (scored == e.field_accuracy.end() || counted == e.field_counts.end())
      continue;  // of no document's type
    const double acc = scored->second;
    const eval::Counts& c = counted->second;
    const auto misses = e.field_miss_count.find(field);
    out += "<tr><th>" + escape(field) + "</th><td class=\"n\">" + bar(acc) + fixed(acc) +
           "</td><td class=\"n\">" + fixed(c.precision()) + "</td><td class=\"n\">" +
           fixed(c.recall()) + "</td><td class=\"n\">" + fixed(c.f1()) + "</td><td class=\"n\">" +
           std::to_string(misses == e.field_miss_count.end() ? 0 : misses->second) + "</td>";
    if (b != nullptr) {
      const auto it = b->field_accuracy.find(field);
      if (it == b->field_accuracy.end()) {
        out += "<td></td><td></td>";
      } else {
        const double d = acc - it->second;
        out += "<td class=\"n\">" + fixed(it->second) + "</td><td class=\"n " +
               std::string(d < 0   ? "wrong"
                           : d > 0 ? "right"
                                   : "") +
               "\">" + (d > 0 ? "+" : "") + fixed(d) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  if (!e.missing_predictions.empty()) {
    out +=
        "<p>In the truth but without a prediction (scored 0 in each field): <span class=\"name\">";
    for (std::size_t i = 0; i < e.missing_predictions.size(); ++i)
      out += (i ? ", " : "") + escape(e.missing_predictions[i]);
    out += "</span></p>\n";
  }
  return out;
}

std::string curves(const Index& x) {
  const eval::ConfidenceEvaluation& c = *x.confidence;
  std::string out =
      "<h2 id=\"risk-coverage\">Risk–coverage</h2>\n<p>Each curve: the accuracy of the values kept "
      "against the share kept, from the most confident down; the dashed line is the review "
      "threshold (docs/confidence.md).</p>\n"
      "<div class=\"charts\" id=\"curves\">\n";
  out += risk_coverage_svg(c.all, x.thresholds.every);
  for (const eval::ConfidenceGroup& g : c.fields)
    out += risk_coverage_svg(g, x.thresholds.of(g.name));
  return out + "</div>\n";
}

std::string filter_select(const std::string& id, const std::string& label,
                          const std::set<std::string>& values) {
  std::string out =
      "<label>" + label + " <select id=\"" + id + "\"><option value=\"\">all</option>";
  for (const std::string& v : values)
    out += "<option value=\"" + escape(v) + "\">" + (v.empty() ? "none" : escape(v)) + "</option>";
  return out + "</select></label>";
}

std::string documents_table(const Index& x) {
  const bool truth = x.evaluation != nullptr, baseline = !x.baseline_label.empty();
  std::set<std::string> statuses, types;
  for (const Entry* e : x.documents) {
    statuses.insert(e->status);
    types.insert(e->type);
  }
  const std::set<std::string> fields(x.fields.begin(), x.fields.end());
  std::string out =
      "<h2 id=\"documents\">Documents, worst first</h2>\n<div id=\"filters\" hidden>" +
      filter_select("f-status", "Status", statuses) + filter_select("f-type", "Type", types) +
      filter_select("f-field", "Field under review or wrong", fields) +
      " Showing <span id=\"shown\"></span></div>\n";
  out +=
      "<table id=\"docs\"><thead><tr><th class=\"n\" data-key=\"n\">#</th><th "
      "data-key=\"s\">document</th><th data-key=\"s\">type</th><th data-key=\"s\">status</th><th "
      "class=\"n\" data-key=\"n\">read</th><th class=\"n\" data-key=\"n\">review</th>";
  if (truth)
    out += "<th class=\"n\" data-key=\"n\">wrong</th><th class=\"n\" data-key=\"n\">accuracy</th>";
  if (baseline) out += "<th class=\"n\" data-key=\"n\">changed</th>";
  out +=
      "<th data-key=\"s\">tier</th><th class=\"n\" "
      "data-key=\"n\">seconds</th></tr></thead><tbody>\n";
  for (const Entry* e : x.documents) {
    std::string flagged;
    for (const std::string& f : e->flagged) flagged += (flagged.empty() ? "" : " ") + f;
    const std::string name = escape(e->name), type = escape(e->type);
    out += "<tr class=\"doc-row\" data-status=\"" + e->status + "\" data-type=\"" + type +
           "\" data-fields=\"" + escape(flagged) + "\">";
    out += "<td class=\"n\" data-v=\"" + std::to_string(e->number) + "\">" +
           std::to_string(e->number) + "</td>";
    out += "<td data-v=\"" + name + "\"><a class=\"name\" href=\"pages/" +
           document_stem(e->number) + ".html\">" + name + "</a>";
    if (e->failed()) out += "<br><span class=\"failed\">" + escape(e->error) + "</span>";
    out += "</td><td data-v=\"" + type + "\">" + type + "</td>";
    out += "<td data-v=\"" + e->status + "\" class=\"" + (e->failed() ? "failed" : "") + "\">" +
           e->status + "</td>";
    out += "<td class=\"n\" data-v=\"" + std::to_string(e->fields_read) + "\">" +
           std::to_string(e->fields_read) + "</td>";
    out += "<td class=\"n" + std::string(e->review ? " review" : "") + "\" data-v=\"" +
           std::to_string(e->review) + "\">" + std::to_string(e->review) + "</td>";
    if (truth) {
      out += "<td class=\"n" + std::string(e->wrong ? " wrong" : "") + "\" data-v=\"" +
             std::to_string(e->wrong) + "\">" + std::to_string(e->wrong) + "</td>";
      out += "<td class=\"n\" data-v=\"" + fixed(e->accuracy.value_or(-1), 4) + "\">" +
             fixed_or_empty(e->accuracy) + "</td>";
    }
    if (baseline) {
      out += "<td class=\"n\" data-v=\"" + std::to_string(e->changed.value_or(-1)) + "\">" +
             (e->changed ? std::to_string(*e->changed) : std::string("—")) + "</td>";
    }
    out += "<td data-v=\"" + escape(e->tier) + "\">" + escape(e->tier) + "</td>";
    out += "<td class=\"n\" data-v=\"" + fixed(e->seconds, 4) + "\">" + fixed(e->seconds, 2) +
           "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string index_page(const Index& x) {
  std::string body = "<header><h1>docsift report: <span class=\"name\">" + escape(x.run) +
                     "</span></h1>\n<p class=\"muted\">" + std::to_string(x.documents.size()) +
                     " documents, generated " + escape(x.generated_at);
  if (!x.truth_label.empty())
    body += " · truth <span class=\"name\">" + escape(x.truth_label) + "</span>";
  if (!x.baseline_label.empty())
    body += " · baseline <span class=\"name\">" + escape(x.baseline_label) + "</span>";
  const bool has_curves = x.confidence != nullptr && !x.confidence->all.values.empty();
  body += "</p><nav><a href=\"#run\">Run</a><a href=\"" + std::string(kQueue) +
          "\">Review queue</a><a href=\"#types-heading\">Document types</a>";
  if (x.evaluation != nullptr) body += "<a href=\"#scores-heading\">Scores</a>";
  body += "<a href=\"#documents\">Documents</a>";
  if (has_curves) body += "<a href=\"#risk-coverage\">Risk–coverage</a>";
  body += "</nav></header>\n<main>\n" + run_summary(x) + counts_by_type(x);
  if (x.evaluation != nullptr) body += scores(x);
  body += documents_table(x);
  if (has_curves) body += curves(x);
  body += "</main>";
  return page({"docsift report: " + x.run, x.nonce, body});
}

}  // namespace docsift::html_report
