#include "docsift/eval/junit.h"

#include <cstdio>
#include <vector>

namespace docsift::eval {
namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
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

struct Case {
  std::string name;
  double accuracy;
  std::vector<std::string> failures;
};

}  // namespace

std::string to_junit(const Evaluation& evaluation, const Gate& gate) {
  // What failed, per case: the gate, and the regressions (each names its field first).
  const std::vector<std::string> regressed =
      gate.baseline ? regressions(evaluation, *gate.baseline, gate.tolerance) : std::vector<std::string>{};
  const auto case_for = [&](const std::string& name, const std::string& regression_prefix, double accuracy) {
    Case c{name, accuracy, {}};
    if (gate.min_accuracy && accuracy < *gate.min_accuracy) {
      c.failures.push_back("accuracy " + number(accuracy) + " is below --min-accuracy " + number(*gate.min_accuracy));
    }
    for (const auto& r : regressed) {
      if (r.rfind(regression_prefix + " fell from ", 0) == 0) c.failures.push_back(r);
    }
    return c;
  };
  std::vector<Case> cases{case_for("overall", "overall accuracy", evaluation.overall)};
  for (const auto& field : evaluation.fields) {
    const auto it = evaluation.field_accuracy.find(field);
    cases.push_back(case_for(field, field, it == evaluation.field_accuracy.end() ? 0.0 : it->second));
  }
  int failures = 0;
  for (const auto& c : cases) failures += c.failures.empty() ? 0 : 1;
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"0\" skipped=\"0\"";
  xml += "<testsuites name=\"docsift eval\"" + counts + ">\n";
  xml += "  <testsuite name=\"docsift.eval\"" + counts + " time=\"0\">\n";
  xml += "    <properties>\n      <property name=\"images\" value=\"" + std::to_string(evaluation.images.size()) +
         "\"/>\n      <property name=\"overall_accuracy\" value=\"" + number(evaluation.overall) + "\"/>\n    </properties>\n";
  for (const auto& c : cases) {
    xml += "    <testcase classname=\"docsift.eval." + std::string(c.name == "overall" ? "overall" : "field") +
           "\" name=\"" + xml_escape(c.name) + "\" time=\"0\">\n";
    // The schema's order: failures, then system-out.
    for (const auto& f : c.failures) {
      xml += "      <failure message=\"" + xml_escape(f) + "\" type=\"accuracy\">" + xml_escape(f) + "</failure>\n";
    }
    xml += "      <system-out>accuracy " + number(c.accuracy) + " (" + band(c.accuracy) + ")</system-out>\n";
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace docsift::eval
