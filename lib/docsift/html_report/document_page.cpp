// A document's page (pages.h): the page image with the boxes of the values read, beside the
// fields table, then the record's facts.
#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "docsift/html_report/html.h"
#include "docsift/html_report/pages.h"
#include "docsift/journal/page_arithmetic.h"

namespace docsift::html_report {
namespace {

std::string cls(const FieldView& f) {
  if (f.wrong()) return "wrong";
  if (f.review) return "review";
  return "";
}

// The page image as SVG in the page's own pixels (the record's image size, which the boxes are
// in), so the boxes scale with it and need no script. Each box links to its field's row.
std::string figure(const journal::Record& record, const std::vector<FieldView>& fields,
                   const DocumentPage& p) {
  const std::string stem = document_stem(p.entry->number);
  if (!p.image) {
    return "<figure><figcaption class=\"muted\">No page image: " + escape(p.image_problem) +
           "</figcaption></figure>\n";
  }
  int w = p.image_width, h = p.image_height;
  if (record.image.is_object() && record.image.value("width", 0) > 0 &&
      record.image.value("height", 0) > 0) {
    w = record.image.value("width", 0);
    h = record.image.value("height", 0);
  }
  // One rectangle per field (each lights with its row), one label per place: two fields read from
  // the same words (a supplier's name that is also its address line) share the label.
  std::map<std::array<int, 4>, std::string> labels;
  std::string svg;
  for (const FieldView& f : fields) {
    if (!f.box) continue;
    const auto& b = *f.box;
    std::string& label = labels[b];
    label += (label.empty() ? "" : ", ") + f.name;
    svg += "<a href=\"#f-" + escape(f.name) + "\"><rect class=\"box " + cls(f) +
           "\" data-field=\"" + escape(f.name) + "\" x=\"" + std::to_string(b[0]) + "\" y=\"" +
           std::to_string(b[1]) + "\" width=\"" + std::to_string(b[2]) + "\" height=\"" +
           std::to_string(b[3]) + "\"><title>" + escape(f.name) + ": " +
           escape(f.value.value_or("N/A")) + "</title></rect></a>\n";
  }
  // One rectangle per table row (each lights with its line in the table below), under the fields'.
  std::string rows_svg;
  if (record.line_items) {
    int n = 0;
    for (const auto& item : *record.line_items) {
      const auto& b = item.box;
      ++n;
      if (b[2] <= 0 || b[3] <= 0) continue;
      rows_svg += "<a href=\"#r-" + std::to_string(n) + "\"><rect class=\"box row\" data-row=\"" +
                  std::to_string(n) + "\" x=\"" + std::to_string(b[0]) + "\" y=\"" +
                  std::to_string(b[1]) + "\" width=\"" + std::to_string(b[2]) + "\" height=\"" +
                  std::to_string(b[3]) + "\"><title>row " + std::to_string(n) + ": " +
                  escape(item.description) + "</title></rect></a>\n";
    }
  }
  svg = rows_svg + svg;
  const int size = std::max(12, std::max(w, h) / 70);
  for (const auto& [b, label] : labels) {
    // Outside the box it names, never over its value: above it, or below it when the box is at
    // the page's top edge; the halo (paint-order stroke) keeps it legible over other words.
    const int y = b[1] - 4 >= size ? b[1] - 4 : b[1] + b[3] + size;
    svg += "<text class=\"label\" x=\"" + std::to_string(b[0]) + "\" y=\"" + std::to_string(y) +
           "\" font-size=\"" + std::to_string(size) + "\">" + escape(label) + "</text>\n";
  }
  const std::size_t boxes = std::count_if(fields.begin(), fields.end(),
                                          [](const FieldView& f) { return f.box.has_value(); });
  // data-src: the page's script checks that the image is there (a report folder copied without
  // img/).
  std::string out = "<figure data-src=\"../img/" + stem + ".jpg\"><svg viewBox=\"0 0 " +
                    std::to_string(w) + " " + std::to_string(h) +
                    "\" role=\"img\" aria-label=\"The page, with the boxes of the values "
                    "read\">\n<image href=\"../img/" +
                    stem + ".jpg\" x=\"0\" y=\"0\" width=\"" + std::to_string(w) + "\" height=\"" +
                    std::to_string(h) + "\" preserveAspectRatio=\"none\"/>\n" + svg +
                    "</svg>\n<figcaption>";
  out += std::to_string(boxes) + (boxes == 1 ? " box" : " boxes") + " of the values read";
  if (record.line_items && !record.line_items->empty()) {
    const std::size_t n = record.line_items->size();
    out += ", " + std::to_string(n) + (n == 1 ? " table row" : " table rows");
  }
  if (p.full_image) out += " · <a href=\"../img/" + stem + ".full.jpg\">the page at full size</a>";
  // The colours' legend: what a box's colour says of its value.
  out +=
      "<br><span class=\"legend\"><i class=\"swatch\"></i>accepted <i class=\"swatch "
      "review\"></i>to review <i class=\"swatch wrong\"></i>wrong (with --truth) <i "
      "class=\"swatch row\"></i>a table row; each label sits outside the box it names</span>";
  return out + "</figcaption></figure>\n";
}

std::string value_cell(const std::optional<std::string>& value) {
  return value ? "<td class=\"value\">" + escape(*value) + "</td>"
               : "<td class=\"value na\">N/A</td>";
}

std::string fields_table(const std::vector<FieldView>& fields, const DocumentPage& p) {
  std::string out =
      "<table id=\"fields\"><thead><tr><th>Field</th><th>Value</th><th class=\"n\">Confidence</th>";
  if (p.truth) out += "<th>Truth</th><th class=\"n\">Score</th>";
  if (p.baseline) out += "<th>Baseline</th>";
  out += "</tr></thead><tbody>\n";
  for (const FieldView& f : fields) {
    out += "<tr id=\"f-" + escape(f.name) + "\" data-field=\"" + escape(f.name) + "\"><th>" +
           escape(f.name);
    if (f.review)
      out += " <span class=\"review\" title=\"under the review threshold\">review</span>";
    out += "</th>" + value_cell(f.value);
    if (f.original) {  // a person's value (review apply): marked, the value read struck through
      out.insert(out.size() - 5,
                 " <span class=\"corrected\" title=\"corrected by a person (docsift review "
                 "apply)\">corrected</span> <del title=\"as read\">" +
                     escape(*f.original) + "</del>");
    }
    out += "<td class=\"n" + std::string(f.review ? " review" : "") + "\">" +
           fixed_or_empty(f.confidence) + "</td>";
    if (p.truth) {
      out += f.truth ? "<td class=\"value\">" + escape(*f.truth) + "</td>"
                     : "<td class=\"na\">not in the truth</td>";
      const std::string mark = !f.score ? "" : *f.score >= 1.0 ? "right" : "wrong";
      out += "<td class=\"n " + mark + "\">" + fixed_or_empty(f.score) + "</td>";
    }
    if (p.baseline) {
      if (!f.baseline_known) {
        out += "<td class=\"na\">not in the baseline</td>";
      } else {
        const std::string v = f.baseline ? escape(*f.baseline) : "N/A";
        out += "<td class=\"value" + std::string(f.changed() ? " review" : "") + "\">" + v +
               (f.changed() ? " <span class=\"muted\">(changed)</span>" : "") + "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

// What the engine's arithmetic said of the table (the OCR engine's checks: the rows against the
// subtotal or total, quantity × unit price, a statement's balances), in words, each disagreement
// with its difference as review.csv's `check` gives it; empty when it said nothing.
std::string table_checks(const journal::Record& record) {
  std::string out;
  for (const std::string& said : journal::table_agreements(record))
    out += "<li class=\"right\">" + escape(said) + "</li>";
  for (const journal::Disagreement& d : journal::page_disagreements(record)) {
    if (d.of_table) out += "<li class=\"wrong\">" + escape(d.says) + "</li>";
  }
  return out.empty() ? "" : "<ul class=\"checks\">" + out + "</ul>\n";
}

// The table the page printed, one line per row as line_items.csv has it; each row's number links
// to its box on the page.
std::string rows_table(const journal::Record& record) {
  if (!record.line_items || record.line_items->empty()) return "";
  using Item = journal::Record::LineItem;
  using Cell = std::optional<std::string> Item::*;
  static constexpr std::array<std::pair<const char*, Cell>, 7> kCells{
      {{"Date", &Item::date},
       {"Quantity", &Item::quantity},
       {"Unit price", &Item::unit_price},
       {"Amount", &Item::amount},
       {"Debit", &Item::debit},
       {"Credit", &Item::credit},
       {"Balance", &Item::balance}}};
  const auto& items = *record.line_items;
  std::vector<std::pair<const char*, Cell>> shown;  // the columns some row printed
  for (const auto& column : kCells) {
    if (std::any_of(items.begin(), items.end(),
                    [&](const Item& i) { return (i.*column.second).has_value(); }))
      shown.push_back(column);
  }
  // Each row's own confidence (docs/confidence.md, "Rows"), where the engine gave one: the
  // doubtful rows of a table are the ones to check.
  const bool sure = std::any_of(items.begin(), items.end(),
                                [](const Item& i) { return i.confidence.has_value(); });
  std::string out = "<h2>Table</h2>\n" + table_checks(record) +
                    "<table id=\"rows\"><thead><tr><th class=\"n\">#</th><th>Description</th>";
  for (const auto& [name, cell] : shown) out += std::string("<th>") + name + "</th>";
  if (sure) out += "<th class=\"n\">Confidence</th>";
  out += "</tr></thead><tbody>\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    out += "<tr id=\"r-" + n + "\" data-row=\"" + n + "\"><td class=\"n\">" + n +
           "</td><td class=\"value\">" + escape(items[i].description) + "</td>";
    for (const auto& column : shown) out += value_cell(items[i].*column.second);
    if (sure) out += "<td class=\"n\">" + fixed_or_empty(items[i].confidence) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

// The record's facts: status, tier, engine, timings, warnings.
std::string facts(const journal::Record& record) {
  std::string out = "<h2>Record</h2><table><tbody>\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    out += "<tr><th>" + k + "</th><td class=\"value\">" + v + "</td></tr>\n";
  };
  row("status", record.ok() ? "ok" : "<span class=\"failed\">failed</span>");
  if (!record.error.empty()) row("error", escape(record.error));
  if (record.warning) row("warning", escape(*record.warning));
  if (!record.tier.empty()) row("tier", escape(record.tier));
  if (record.text_source) row("text from", escape(*record.text_source));
  if (record.decoding) row("decoding", escape(*record.decoding));
  if (record.document_type_confidence)
    row("document type confidence", fixed(*record.document_type_confidence));
  if (record.engine.is_object()) {
    for (const auto& [key, value] : record.engine.items()) {
      if (value.is_primitive())
        row("engine: " + escape(key),
            escape(value.is_string() ? value.get<std::string>() : value.dump()));
    }
  }
  if (record.model.is_string()) row("model", escape(record.model.get<std::string>()));
  std::string timings;
  for (const auto& [stage, s] : record.timings_s)
    timings += (timings.empty() ? "" : ", ") + escape(stage) + " " + seconds(s);
  if (!timings.empty()) row("timings", timings);
  if (!record.finished_at.empty()) row("finished", escape(record.finished_at));
  if (!record.config_hash.empty()) row("config", escape(record.config_hash));
  out += "</tbody></table>\n";
  if (record.raw_response && !record.raw_response->empty()) {
    out += "<details><summary>What the engine read (" +
           std::to_string(record.raw_response->size()) + " bytes)</summary><pre>" +
           escape(*record.raw_response) + "</pre></details>\n";
  }
  return out;
}

std::string neighbour(const Entry* e, const std::string& label) {
  if (e == nullptr) return "<span class=\"muted\">" + label + "</span>";
  return "<a href=\"" + document_stem(e->number) + ".html\" title=\"" + escape(e->name) + "\">" +
         label + "</a>";
}

}  // namespace

std::string document_page(const journal::Record& record, const std::vector<FieldView>& fields,
                          const DocumentPage& p) {
  const Entry& e = *p.entry;
  std::string body = "<header><nav><a href=\"../index.html\">← All documents</a>" +
                     neighbour(p.previous, "← Previous") + neighbour(p.next, "Next →") +
                     "<span class=\"muted\">" + std::to_string(e.number) + " of " +
                     std::to_string(p.documents) + ", worst first</span></nav>\n";
  body +=
      "<h1 class=\"name\" id=\"document-name\">" + escape(e.name) + "</h1>\n<div class=\"facts\">";
  body += "<div>status<b class=\"" + std::string(e.failed() ? "failed" : "") + "\">" + e.status +
          "</b></div>";
  body += "<div>type<b>" + (e.type.empty() ? std::string("—") : escape(e.type)) + "</b></div>";
  body += "<div>under review<b class=\"" + std::string(e.review > 0 ? "review" : "") + "\">" +
          std::to_string(e.review) + "</b></div>";
  if (p.truth) {
    body += "<div>wrong<b class=\"" + std::string(e.wrong > 0 ? "wrong" : "") + "\">" +
            std::to_string(e.wrong) + "</b></div>";
    body += "<div>accuracy<b>" +
            (e.accuracy ? fixed(*e.accuracy) : std::string("not in the truth")) + "</b></div>";
  }
  if (p.baseline && e.changed)
    body += "<div>changed from the baseline<b>" + std::to_string(*e.changed) + "</b></div>";
  body += "<div>tier<b>" + (e.tier.empty() ? std::string("—") : escape(e.tier)) + "</b></div>";
  body += "<div>time<b>" + seconds(e.seconds) + "</b></div></div>\n";
  if (e.failed()) body += "<p class=\"failed\" id=\"error\">" + escape(e.error) + "</p>\n";
  body += "</header>\n<main>\n<div class=\"doc\">\n" + figure(record, fields, p) + "<div>\n";
  body += fields.empty() ? std::string("<p class=\"muted\">No fields: the page failed.</p>\n")
                         : fields_table(fields, p);
  body += rows_table(record) + facts(record) + "</div>\n</div>\n</main>";
  return page({e.name + " · docsift report", p.nonce, body});
}

}  // namespace docsift::html_report
