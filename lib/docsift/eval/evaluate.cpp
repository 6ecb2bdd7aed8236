#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "docsift/batch/record.h"
#include "docsift/error.h"
#include "docsift/eval/scoring.h"
#include "docsift/io/csv.h"
#include "docsift/io/page_name.h"

namespace docsift::eval {
namespace {

std::string fixed(double value, int digits = 3) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

}  // namespace

Records read_records_csv(const std::filesystem::path& path) {
  const io::CsvTable table = io::read_csv(path);
  const auto image_column = std::find(table.header.begin(), table.header.end(), "image_file");
  if (image_column == table.header.end()) throw FileError(path.string() + ": no image_file column");
  const auto image_index = static_cast<std::size_t>(image_column - table.header.begin());
  Records records;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    // "x.pdf#page=1" and "x.pdf" are one document (a one-page file keeps its plain name).
    const std::string image(io::document_key(table.rows[r][image_index]));
    if (image.empty()) throw FileError(path.string() + ": row " + std::to_string(r + 2) + " has no image_file");
    if (records.count(image) != 0) throw FileError(path.string() + ": image " + image + " appears twice");
    auto& fields = records[image];
    for (std::size_t c = 0; c < table.header.size(); ++c) {
      if (c != image_index) fields[table.header[c]] = table.rows[r][c];
    }
  }
  return records;
}

Records read_records_jsonl(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path.string() + ": cannot open for reading");
  Records records;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      // A run killed mid-write leaves a torn last line; anything else is corruption.
      if (in.peek() == std::char_traits<char>::eof()) break;
      throw FileError(path.string() + ":" + std::to_string(number) + ": not JSON: " + e.what());
    }
    const batch::Record r = batch::Record::from_json(record, path.string() + ":" + std::to_string(number));
    const std::string image(io::document_key(std::filesystem::path(r.file).filename().string()));
    auto& fields = records[image];  // a later record for the same file replaces the earlier one
    fields.clear();
    if (r.fields) fields.insert(r.fields->begin(), r.fields->end());
  }
  return records;
}

Records read_predictions(const std::filesystem::path& path) {
  return path.extension() == ".jsonl" ? read_records_jsonl(path) : read_records_csv(path);
}

Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth, const Records& predictions,
                    const std::string& truth_label) {
  if (truth.empty()) throw FileError(truth_label + ": no images in the ground truth");
  Evaluation e;
  for (const extract::Field& f : schema.fields) {
    if (truth.begin()->second.count(f.name) == 0) {
      throw FileError(truth_label + ": no column for field " + f.name + " of " + schema.source);
    }
    e.fields.push_back(f.name);
  }
  std::map<std::string, std::pair<double, int>> per_field, per_type;
  double sum = 0;
  for (const auto& [image, truth_fields] : truth) {
    ImageScore score;
    score.image = image;
    const auto type_it = truth_fields.find("DOCUMENT_TYPE");
    score.document_type = type_it == truth_fields.end() ? "" : type_it->second;
    const auto predicted = predictions.find(image);
    if (predicted == predictions.end()) {
      score.predicted = false;
      e.missing_predictions.push_back(image);
    } else {
      double image_sum = 0;
      for (const extract::Field& f : schema.fields) {
        const auto p = predicted->second.find(f.name);
        const double s = score_field(f.type, p == predicted->second.end() ? "" : p->second, truth_fields.at(f.name));
        score.fields[f.name] = s;
        image_sum += s;
        per_field[f.name].first += s;
        per_field[f.name].second += 1;
      }
      score.accuracy = image_sum / static_cast<double>(schema.fields.size());
    }
    sum += score.accuracy;
    per_type[score.document_type].first += score.accuracy;
    per_type[score.document_type].second += 1;
    e.images.push_back(std::move(score));
  }
  for (const auto& [image, fields] : predictions) {
    if (truth.count(image) == 0) e.unexpected_predictions.push_back(image);
  }
  for (const auto& [field, acc] : per_field) e.field_accuracy[field] = acc.first / acc.second;
  for (const auto& [type, acc] : per_type) e.document_type_accuracy[type] = acc.first / acc.second;
  e.overall = sum / static_cast<double>(e.images.size());
  return e;
}

std::string band(double accuracy) { return accuracy >= 0.8 ? "good" : accuracy >= 0.6 ? "fair" : "poor"; }

nlohmann::json to_json(const Evaluation& e) {
  nlohmann::json images = nlohmann::json::array();
  for (const ImageScore& s : e.images) {
    images.push_back({{"image", s.image}, {"document_type", s.document_type}, {"accuracy", s.accuracy},
                      {"predicted", s.predicted}, {"fields", s.fields}});
  }
  return {{"overall", e.overall},
          {"band", band(e.overall)},
          {"images_scored", e.images.size()},
          {"fields", e.field_accuracy},
          {"document_types", e.document_type_accuracy},
          {"missing_predictions", e.missing_predictions},
          {"unexpected_predictions", e.unexpected_predictions},
          {"images", images}};
}

std::string to_table(const Evaluation& e) {
  std::ostringstream out;
  out << "field                    accuracy\n";
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    out << f << std::string(f.size() < 25 ? 25 - f.size() : 1, ' ')
        << (it == e.field_accuracy.end() ? "   -" : fixed(it->second)) << '\n';
  }
  out << "\ndocument type            accuracy\n";
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const std::string name = type.empty() ? "(none)" : type;
    out << name << std::string(name.size() < 25 ? 25 - name.size() : 1, ' ') << fixed(acc) << '\n';
  }
  out << "\noverall " << fixed(e.overall) << " (" << band(e.overall) << ") over " << e.images.size() << " images";
  if (!e.missing_predictions.empty()) out << "; " << e.missing_predictions.size() << " without a prediction (scored 0)";
  if (!e.unexpected_predictions.empty()) out << "; " << e.unexpected_predictions.size() << " predictions not in the ground truth";
  out << '\n';
  return out.str();
}

std::string to_markdown(const Evaluation& e) {
  std::ostringstream out;
  out << "# docsift evaluation\n\n**Overall accuracy: " << fixed(e.overall) << "** (" << band(e.overall) << ", "
      << e.images.size() << " images)\n\n| field | accuracy |\n|---|---|\n";
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    out << "| " << f << " | " << (it == e.field_accuracy.end() ? "-" : fixed(it->second)) << " |\n";
  }
  out << "\n| document type | accuracy |\n|---|---|\n";
  for (const auto& [type, acc] : e.document_type_accuracy) out << "| " << (type.empty() ? "(none)" : type) << " | " << fixed(acc) << " |\n";
  out << "\n| image | document type | accuracy |\n|---|---|---|\n";
  for (const ImageScore& s : e.images) {
    out << "| " << s.image << " | " << s.document_type << " | " << (s.predicted ? fixed(s.accuracy) : "no prediction") << " |\n";
  }
  if (!e.unexpected_predictions.empty()) {
    out << "\nPredictions for images not in the ground truth:";
    for (const auto& image : e.unexpected_predictions) out << ' ' << image;
    out << '\n';
  }
  return out.str();
}

std::vector<std::string> regressions(const Evaluation& current, const nlohmann::json& baseline, double tolerance) {
  if (!baseline.is_object() || !baseline.contains("overall") || !baseline["overall"].is_number()) {
    throw FileError("the baseline is not a docsift eval JSON report (no \"overall\")");
  }
  std::vector<std::string> found;
  const auto check = [&](const std::string& what, double before, double now) {
    if (before - now > tolerance) {
      found.push_back(what + " fell from " + fixed(before) + " to " + fixed(now) + " (more than " + fixed(tolerance) + ")");
    }
  };
  check("overall accuracy", baseline["overall"].get<double>(), current.overall);
  if (baseline.contains("fields") && baseline["fields"].is_object()) {
    for (const auto& [field, before] : baseline["fields"].items()) {
      const auto it = current.field_accuracy.find(field);
      if (before.is_number() && it != current.field_accuracy.end()) check(field, before.get<double>(), it->second);
    }
  }
  return found;
}

}  // namespace docsift::eval
