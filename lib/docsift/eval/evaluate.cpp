#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "docsift/batch/record.h"
#include "docsift/error.h"
#include "docsift/eval/scoring.h"
#include "docsift/io/csv.h"
#include "docsift/io/page_name.h"

namespace docsift::eval {

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

namespace {

// Each non-blank line of a JSONL file, parsed, to `visit` with "path:LINE" for its messages. A
// line that is not JSON is a FileError, except a torn last line when `torn_tail_ok` (a run
// killed mid-write), which ends the file.
void for_each_json_line(const std::filesystem::path& path, bool torn_tail_ok,
                        const std::function<void(const nlohmann::json&, const std::string& where)>& visit) {
  std::ifstream in(path);
  if (!in) throw FileError(path.string() + ": cannot open for reading");
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(number);
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      if (torn_tail_ok && in.peek() == std::char_traits<char>::eof()) break;
      throw FileError(where + ": not JSON");
    }
    visit(json, where);
  }
}

}  // namespace

Records read_records_jsonl(const std::filesystem::path& path) {
  Records records;
  for_each_json_line(path, /*torn_tail_ok=*/true, [&](const nlohmann::json& json, const std::string& where) {
    const batch::Record r = batch::Record::from_json(json, where);
    const std::string image(io::document_key(std::filesystem::path(r.file).filename().string()));
    auto& fields = records[image];  // a later record for the same file replaces the earlier one
    fields.clear();
    if (r.fields) fields.insert(r.fields->begin(), r.fields->end());
  });
  return records;
}

Records read_truth_jsonl(const std::filesystem::path& path, const std::vector<std::string>& field_names) {
  Records records;
  for_each_json_line(path, /*torn_tail_ok=*/false, [&](const nlohmann::json& doc, const std::string& where) {
    if (!doc.is_object()) throw FileError(where + ": not a JSON object");
    if (doc.contains("status") && doc.contains("timings_s")) {
      throw ConfigError("GT " + path.string() + " is a run journal, which holds predictions; the order is docsift "
                        "eval PRED GT");
    }
    const auto name = doc.find("image_file");
    if (name == doc.end() || !name->is_string() || name->get<std::string>().empty()) {
      throw FileError(where + ": no \"image_file\" string");
    }
    const std::string image(io::document_key(name->get<std::string>()));
    if (records.count(image) != 0) throw FileError(where + ": image " + image + " appears twice");
    auto& fields = records[image];
    for (const std::string& field : field_names) fields[field] = "N/A";
    for (const auto& [key, value] : doc.items()) {
      if (key != "image_file") fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  });
  return records;
}

Records read_predictions(const std::filesystem::path& path) {
  return path.extension() == ".jsonl" ? read_records_jsonl(path) : read_records_csv(path);
}

void Counts::add(const Counts& o) {
  tp += o.tp;
  fp += o.fp;
  fn += o.fn;
  tn += o.tn;
}

double Counts::precision() const { return tp + fp > 0 ? tp / (tp + fp) : (fn == 0 ? 1.0 : 0.0); }
double Counts::recall() const { return tp + fn > 0 ? tp / (tp + fn) : (fp == 0 ? 1.0 : 0.0); }
double Counts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

namespace {

Counts count_case(std::string_view predicted, std::string_view truth, double score) {
  Counts c;
  const bool has_value = !extract::is_missing(predicted), has_truth = !extract::is_missing(truth);
  if (!has_value && !has_truth) {
    c.tn = 1;
  } else if (has_value && !has_truth) {
    c.fp = 1;
  } else if (!has_value) {
    c.fn = 1;
  } else {
    c.tp = score;
    c.fp = 1 - score;
  }
  return c;
}

// Worst first: the lower score, then the earlier image.
bool worse(const Miss& a, const Miss& b) { return a.score != b.score ? a.score < b.score : a.image < b.image; }

// Keeps the kMissesKept worst misses as a heap whose top is the best of them; images arrive in
// order, so of equal scores the earlier ones stay.
void keep_miss(std::vector<Miss>& kept, const std::string& image, const std::string& truth, const std::string& predicted,
               double score) {
  if (kept.size() == kMissesKept) {
    if (!(score < kept.front().score)) return;
    std::pop_heap(kept.begin(), kept.end(), worse);
    kept.pop_back();
  }
  kept.push_back({image, truth, predicted, score});
  std::push_heap(kept.begin(), kept.end(), worse);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

}  // namespace

Evaluation evaluate(const extract::FieldSchema& schema, const Records& truth, const Records& predictions,
                    const std::string& truth_label, const extract::ScoringRules& rules) {
  if (truth.empty()) throw FileError(truth_label + ": no images in the ground truth");
  Evaluation e;
  e.rules = rules;
  const bool by_type = rules.rules == extract::RuleSet::kDocsift;
  // A ground truth with some of the schema's columns scores those and names the rest.
  std::vector<const extract::Field*> scored_fields;
  for (const extract::Field& f : schema.fields) {
    if (truth.begin()->second.count(f.name) == 0) {
      e.fields_left_out.push_back(f.name);
    } else {
      e.fields.push_back(f.name);
      scored_fields.push_back(&f);
    }
  }
  if (scored_fields.empty()) {
    throw FileError(truth_label + ": no column for any field of " + schema.source + " (is it a ground-truth CSV?)");
  }
  std::map<std::string, std::pair<double, int>> per_field, per_type;
  std::vector<double> image_accuracies;
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
      std::size_t scored = 0;
      Counts& type_counts = e.document_type_counts[score.document_type];
      for (const extract::Field* field : scored_fields) {
        const extract::Field& f = *field;
        // The reference's first rules score every field of every document (as reference-2025 must).
        if (by_type && !f.applies(score.document_type)) continue;
        ++scored;
        const auto p = predicted->second.find(f.name);
        const std::string& value = p == predicted->second.end() ? std::string() : p->second;
        const std::string& expected = truth_fields.at(f.name);
        const double s = score_field(f.type, value, expected, rules, f.items);
        score.fields[f.name] = s;
        image_sum += s;
        per_field[f.name].first += s;
        per_field[f.name].second += 1;
        const Counts c = count_case(value, expected, s);
        e.field_counts[f.name].add(c);
        type_counts.add(c);
        e.counts.add(c);
        if (s < 1.0) {
          ++e.field_miss_count[f.name];
          keep_miss(e.field_misses[f.name], image, expected, value, s);
        }
      }
      score.accuracy = scored == 0 ? 0.0 : image_sum / static_cast<double>(scored);
    }
    sum += score.accuracy;
    image_accuracies.push_back(score.accuracy);
    per_type[score.document_type].first += score.accuracy;
    per_type[score.document_type].second += 1;
    e.images.push_back(std::move(score));
  }
  for (const auto& [image, fields] : predictions) {
    if (truth.count(image) == 0) e.unexpected_predictions.push_back(image);
  }
  for (const auto& [field, acc] : per_field) e.field_accuracy[field] = acc.first / acc.second;
  for (const auto& [type, acc] : per_type) e.document_type_accuracy[type] = acc.first / acc.second;
  for (auto& [field, misses] : e.field_misses) std::sort_heap(misses.begin(), misses.end(), worse);
  e.overall = sum / static_cast<double>(e.images.size());
  e.image_median = median(std::move(image_accuracies));
  return e;
}

std::string band(double accuracy) { return accuracy >= 0.8 ? "good" : accuracy >= 0.6 ? "fair" : "poor"; }

namespace {

nlohmann::json counts_json(const Counts& c) {
  return {{"tp", c.tp}, {"fp", c.fp}, {"fn", c.fn}, {"tn", c.tn},
          {"precision", c.precision()}, {"recall", c.recall()}, {"f1", c.f1()}};
}

// A value in a Markdown table cell: pipes escaped, line breaks as spaces.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? " " : out;
}

// The baseline's accuracy for `field` ("" when it has none).
std::optional<double> baseline_field(const nlohmann::json* baseline, const std::string& field) {
  if (baseline == nullptr || !baseline->contains("fields") || !(*baseline)["fields"].is_object()) return std::nullopt;
  const auto& fields = (*baseline)["fields"];
  if (!fields.contains(field) || !fields[field].is_number()) return std::nullopt;
  return fields[field].get<double>();
}

std::string signed_fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.3f", value);
  return buffer;
}

}  // namespace

std::string fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

nlohmann::json to_json(const Evaluation& e, std::size_t misses_shown) {
  nlohmann::json images = nlohmann::json::array();
  for (const ImageScore& s : e.images) {
    images.push_back({{"image", s.image}, {"document_type", s.document_type}, {"accuracy", s.accuracy},
                      {"predicted", s.predicted}, {"fields", s.fields}});
  }
  nlohmann::json field_stats = nlohmann::json::object(), misses = nlohmann::json::object();
  for (const std::string& f : e.fields) {
    const auto acc = e.field_accuracy.find(f);
    if (acc == e.field_accuracy.end()) continue;
    field_stats[f] = counts_json(e.field_counts.at(f));
    field_stats[f]["accuracy"] = acc->second;
    const auto count = e.field_miss_count.find(f);
    field_stats[f]["misses"] = count == e.field_miss_count.end() ? 0 : count->second;
    const auto m = e.field_misses.find(f);
    if (m == e.field_misses.end() || m->second.empty()) continue;
    nlohmann::json listed = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(m->second.size(), misses_shown); ++i) {
      const Miss& miss = m->second[i];
      listed.push_back({{"image", miss.image}, {"truth", miss.truth}, {"predicted", miss.predicted}, {"score", miss.score}});
    }
    misses[f] = listed;
  }
  nlohmann::json type_stats = nlohmann::json::object();
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const auto c = e.document_type_counts.find(type);
    type_stats[type] = counts_json(c == e.document_type_counts.end() ? Counts{} : c->second);
    type_stats[type]["accuracy"] = acc;
  }
  return {{"rules", name_of(extract::kRuleSetNames, e.rules.rules)},
          {"date_order", name_of(extract::kDateOrderNames, e.rules.date_order)},
          {"list_match", name_of(extract::kListMatchNames, e.rules.list_match)},
          {"overall", e.overall},
          {"band", band(e.overall)},
          {"image_median", e.image_median},
          {"overall_counts", counts_json(e.counts)},
          {"images_scored", e.images.size()},
          {"fields_left_out", e.fields_left_out},
          {"fields", e.field_accuracy},
          {"field_stats", field_stats},
          {"misses", misses},
          {"misses_shown_per_field", misses_shown},
          {"document_types", e.document_type_accuracy},
          {"document_type_stats", type_stats},
          {"missing_predictions", e.missing_predictions},
          {"unexpected_predictions", e.unexpected_predictions},
          {"images", images}};
}

std::string to_table(const Evaluation& e) {
  std::ostringstream out;
  out << "field                    accuracy  precision  recall     F1\n";
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    out << f << std::string(f.size() < 25 ? 25 - f.size() : 1, ' ');
    if (it == e.field_accuracy.end()) {
      out << "   -\n";
      continue;
    }
    const Counts& c = e.field_counts.at(f);
    out << fixed(it->second) << "     " << fixed(c.precision()) << "      " << fixed(c.recall()) << "  " << fixed(c.f1())
        << '\n';
  }
  out << "\ndocument type            accuracy  F1\n";
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const std::string name = type.empty() ? "(none)" : type;
    const auto c = e.document_type_counts.find(type);
    out << name << std::string(name.size() < 25 ? 25 - name.size() : 1, ' ') << fixed(acc) << "     "
        << (c == e.document_type_counts.end() ? std::string("-") : fixed(c->second.f1())) << '\n';
  }
  out << "\noverall " << fixed(e.overall) << " (" << band(e.overall) << ") over " << e.images.size() << " images";
  if (!e.missing_predictions.empty()) out << "; " << e.missing_predictions.size() << " without a prediction (scored 0)";
  if (!e.unexpected_predictions.empty()) out << "; " << e.unexpected_predictions.size() << " predictions not in the ground truth";
  out << "\nmedian image " << fixed(e.image_median) << "; precision " << fixed(e.counts.precision()) << ", recall "
      << fixed(e.counts.recall()) << ", F1 " << fixed(e.counts.f1()) << "; rules "
      << name_of(extract::kRuleSetNames, e.rules.rules) << '\n';
  return out.str();
}

std::string to_markdown(const Evaluation& e, const nlohmann::json* baseline, std::size_t misses_shown) {
  std::ostringstream out;
  out << "# docsift evaluation\n\n**Overall accuracy: " << fixed(e.overall) << "** (" << band(e.overall) << ", "
      << e.images.size() << " images; rules " << name_of(extract::kRuleSetNames, e.rules.rules) << ")";
  if (baseline != nullptr && baseline->contains("overall") && (*baseline)["overall"].is_number()) {
    const double before = (*baseline)["overall"].get<double>();
    out << "; baseline " << fixed(before) << ", delta " << signed_fixed(e.overall - before);
  }
  out << "\n\nMedian image accuracy " << fixed(e.image_median) << "; over every field case precision "
      << fixed(e.counts.precision()) << ", recall " << fixed(e.counts.recall()) << ", F1 " << fixed(e.counts.f1())
      << ".\n\n| field | accuracy | precision | recall | F1 | TP | FP | FN | TN |";
  out << (baseline != nullptr ? " baseline | delta |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
                              : "\n|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& f : e.fields) {
    const auto it = e.field_accuracy.find(f);
    if (it == e.field_accuracy.end()) {
      out << "| " << f << " | - | - | - | - | - | - | - | - |" << (baseline != nullptr ? " - | - |\n" : "\n");
      continue;
    }
    const Counts& c = e.field_counts.at(f);
    out << "| " << f << " | " << fixed(it->second) << " | " << fixed(c.precision()) << " | " << fixed(c.recall()) << " | "
        << fixed(c.f1()) << " | " << fixed(c.tp, 1) << " | " << fixed(c.fp, 1) << " | " << fixed(c.fn, 1) << " | "
        << fixed(c.tn, 1) << " |";
    if (baseline != nullptr) {
      const auto before = baseline_field(baseline, f);
      out << ' ' << (before ? fixed(*before) : "-") << " | " << (before ? signed_fixed(it->second - *before) : "-") << " |";
    }
    out << '\n';
  }
  out << "\n| document type | accuracy | F1 |\n|---|---|---|\n";
  for (const auto& [type, acc] : e.document_type_accuracy) {
    const auto c = e.document_type_counts.find(type);
    out << "| " << (type.empty() ? "(none)" : type) << " | " << fixed(acc) << " | "
        << (c == e.document_type_counts.end() ? std::string("-") : fixed(c->second.f1())) << " |\n";
  }
  out << "\n| image | document type | accuracy |\n|---|---|---|\n";
  for (const ImageScore& s : e.images) {
    out << "| " << s.image << " | " << s.document_type << " | " << (s.predicted ? fixed(s.accuracy) : "no prediction") << " |\n";
  }
  bool any_miss = false;
  for (const std::string& f : e.fields) {
    const auto m = e.field_misses.find(f);
    if (m == e.field_misses.end() || m->second.empty()) continue;
    if (!any_miss) out << "\n## Misses\n\nPer field, worst first, at most " << misses_shown << " each.\n";
    any_miss = true;
    const std::size_t total = e.field_miss_count.at(f);
    out << "\n### " << f << " (" << total << (total == 1 ? " miss" : " misses") << ")\n\n"
        << "| image | truth | predicted | score |\n|---|---|---|---|\n";
    for (std::size_t i = 0; i < std::min(m->second.size(), misses_shown); ++i) {
      const Miss& miss = m->second[i];
      out << "| " << cell(miss.image) << " | " << cell(miss.truth) << " | " << cell(miss.predicted) << " | "
          << fixed(miss.score) << " |\n";
    }
  }
  if (!e.unexpected_predictions.empty()) {
    out << "\nPredictions for images not in the ground truth:";
    for (const auto& image : e.unexpected_predictions) out << ' ' << image;
    out << '\n';
  }
  return out.str();
}

}  // namespace docsift::eval
