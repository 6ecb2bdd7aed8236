// The files of a confidence evaluation: confidence.csv read, --threshold parsed, and the review
// thresholds written as the config fragment `run --config` reads.
#include "docsift/eval/confidence.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "docsift/error.h"
#include "docsift/eval/evaluate.h"

namespace docsift::eval {

namespace {

namespace fs = std::filesystem;

// A confidence must be a probability; anything else is a malformed input, named where it is.
double checked_confidence(double value, const std::string& where) {
  if (!std::isfinite(value) || value < 0 || value > 1) {
    throw MalformedInputError(where + ": confidence " + std::to_string(value) +
                              " is not in [0, 1]");
  }
  return value;
}

// The shortest text that reads back as the same double, so that a threshold written to YAML and
// read back by `run --config` splits the values exactly where eval split them.
std::string exact(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

}  // namespace

double parse_confidence(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() ||
      std::string_view(end).find_first_not_of(" \t") != std::string_view::npos) {
    throw MalformedInputError(where + ": '" + text + "' is not a number");
  }
  return checked_confidence(value, where);
}

Confidences read_confidences_csv(const fs::path& path, const std::string& role) {
  const Records cells = read_records_csv(path, role);
  Confidences out;
  for (const auto& [image, fields] : cells) {
    auto& row = out[image];
    for (const auto& [field, text] : fields) {
      if (text.find_first_not_of(" \t") == std::string::npos) continue;  // no value, no confidence
      row[field] = parse_confidence(text, path.string() + ": " + image + ", " + field);
    }
  }
  return out;
}

void parse_threshold(const std::string& text, extract::ReviewThresholds& into) {
  const auto eq = text.find('=');
  const std::string field = eq == std::string::npos ? "" : text.substr(0, eq);
  const std::string number = eq == std::string::npos ? text : text.substr(eq + 1);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(value >= 0 && value <= 1) ||
      (eq != std::string::npos && field.empty())) {
    throw ConfigError("--threshold " + text +
                      ": expected a number in [0, 1] (every field) or FIELD=X");
  }
  if (field.empty()) {
    into.every = value;
  } else {
    into.fields[field] = value;
  }
}

std::string thresholds_yaml(const extract::ReviewThresholds& t, const std::string& comment,
                            double lowered_by) {
  const auto exact = [lowered_by](double v) {
    return v > 0 ? eval::exact(std::max(0.0, v - lowered_by)) : eval::exact(v);
  };
  std::ostringstream out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out << "# " << line << '\n';
  // The keys lib/docsift/config/schema.cpp reads: review.threshold for every field, and
  // review.fields, per-field thresholds that replace it.
  out << "review:\n  threshold: " << exact(t.every.value_or(0)) << '\n';
  if (!t.fields.empty()) {
    out << "  fields:\n";
    for (const auto& [field, value] : t.fields)
      out << "    " << field << ": " << exact(value) << '\n';
  }
  return out.str();
}

}  // namespace docsift::eval
