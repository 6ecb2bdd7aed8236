#include "docsift/eval/junit.h"

#include <cstdio>
#include <vector>

namespace docsift::eval {
namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", x);
  return text;
}

std::string property(const std::string& name, const std::string& value) {
  std::string out = "      <property name=\"";
  out += xml_escape(name);
  out += "\" value=\"";
  out += xml_escape(value);
  out += "\"/>\n";
  return out;
}

// name.tp, name.fp, ... name.f1 as properties.
std::string count_properties(const std::string& prefix, const Counts& c) {
  return property(prefix + ".tp", number(c.tp)) + property(prefix + ".fp", number(c.fp)) +
         property(prefix + ".fn", number(c.fn)) + property(prefix + ".tn", number(c.tn)) +
         property(prefix + ".precision", number(c.precision())) +
         property(prefix + ".recall", number(c.recall())) +
         property(prefix + ".f1", number(c.f1()));
}

}  // namespace

std::string to_junit(const Evaluation& evaluation, const std::vector<GateCase>& cases) {
  int failures = 0;
  for (const auto& c : cases) failures += c.failures.empty() ? 0 : 1;
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"0\"";
  xml += "<testsuites name=\"docsift eval\"" + counts + ">\n";
  xml += "  <testsuite name=\"docsift.eval\"" + counts + " time=\"0\">\n";
  xml += "    <properties>\n";
  xml += property("images", std::to_string(evaluation.images.size()));
  xml += property("rules", std::string(name_of(extract::kRuleSetNames, evaluation.rules.rules)));
  xml += property("overall_accuracy", number(evaluation.overall));
  xml += property("image_median", number(evaluation.image_median));
  xml += property("coverage", number(evaluation.coverage()));
  xml +=
      property("images_without_prediction", std::to_string(evaluation.missing_predictions.size()));
  xml += count_properties("overall", evaluation.counts);
  for (const auto& c : cases) {
    if (c.name == "overall") continue;
    xml += property(c.name + ".accuracy", number(c.accuracy));
    xml += count_properties(c.name, c.counts);
  }
  for (const auto& [type, acc] : evaluation.document_type_accuracy) {
    xml += property("document_type." + type + ".accuracy", number(acc));
    if (const auto t = evaluation.document_type_counts.find(type);
        t != evaluation.document_type_counts.end()) {
      xml += property("document_type." + type + ".f1", number(t->second.f1()));
    }
  }
  xml += "    </properties>\n";
  for (const auto& c : cases) {
    xml += "    <testcase classname=\"docsift.eval." +
           std::string(c.name == "overall" ? "overall" : "field") + "\" name=\"" +
           xml_escape(c.name) + "\" time=\"0\">\n";
    // The schema's order: failures, then system-out. A passing case has no failure element.
    for (const auto& f : c.failures) {
      xml += "      <failure message=\"" + xml_escape(f) + "\" type=\"gate\">" + xml_escape(f) +
             "</failure>\n";
    }
    xml += "      <system-out>accuracy " + number(c.accuracy) + " (" + band(c.accuracy) +
           "), precision " + number(c.counts.precision()) + ", recall " +
           number(c.counts.recall()) + ", F1 " + number(c.counts.f1());
    if (c.name == "overall") {
      xml += "; " +
             std::to_string(evaluation.images.size() - evaluation.missing_predictions.size()) +
             " of " + std::to_string(evaluation.images.size()) + " pages predicted";
    }
    xml += "</system-out>\n";
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace docsift::eval
