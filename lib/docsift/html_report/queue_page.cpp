// The review queue page (pages.h: queue_page): every queued value of the report's documents in one
// list, the least confident first, each linking to its row on its document's page.
#include <algorithm>
#include <string>
#include <vector>

#include "docsift/html_report/html.h"
#include "docsift/html_report/pages.h"

namespace docsift::html_report {

std::string queue_page(const std::vector<const Entry*>& documents, const std::string& run,
                       const std::string& nonce) {
  struct Item {
    const Entry* entry;
    const QueuedValue* value;
  };
  std::vector<Item> items;
  for (const Entry* e : documents) {
    for (const QueuedValue& q : e->queue) items.push_back({e, &q});
  }
  // Rising confidence, a value without one first; then the index's order, then the page's.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    const double ca = a.value->confidence.value_or(-1), cb = b.value->confidence.value_or(-1);
    if (ca != cb) return ca < cb;
    return a.entry->number < b.entry->number;
  });
  std::string body =
      "<p><a href=\"" + std::string(kIndex) + "\">← the run</a></p><h1>Review queue</h1>\n<p>" +
      std::to_string(items.size()) + (items.size() == 1 ? " value" : " values") + " of " +
      escape(run) +
      " to check, the least confident first (a value with no confidence before all). Correct them "
      "in review.csv's <code>corrected</code> column, then <code>docsift review apply</code> "
      "(docs/confidence.md, \"Corrections\").</p>\n"
      "<p class=\"legend\"><span class=\"review\">amber</span>: to review (under its threshold, "
      "missing, or sums that disagree) · <span class=\"wrong\">red</span>: wrong against the truth "
      "(with --truth) · <span class=\"corrected\">corrected</span>: a person's value</p>\n"
      "<table id=\"queue\"><thead><tr><th>Page</th><th>Field</th><th>Value</th><th "
      "class=\"n\">Confidence</th><th "
      "class=\"n\">Threshold</th><th>Reason</th></tr></thead><tbody>\n";
  for (const Item& item : items) {
    const QueuedValue& q = *item.value;
    const std::string link = std::string(kPagesDir) + "/" + document_stem(item.entry->number) +
                             ".html#f-" + escape(q.field);
    body += "<tr><td><a class=\"name\" href=\"" + link + "\">" + escape(item.entry->name) +
            "</a></td><td>" + escape(q.field) + "</td><td class=\"value\">" + escape(q.value) +
            "</td><td class=\"n review\">" + fixed_or_empty(q.confidence) +
            "</td><td class=\"n\">" + fixed_or_empty(q.threshold) + "</td><td>" + escape(q.reason) +
            "</td></tr>\n";
  }
  body += "</tbody></table>\n";
  return page({"docsift review queue: " + run, nonce, body});
}

}  // namespace docsift::html_report
