#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include "docsift/journal/record.h"
#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/eval/scoring.h"
#include "docsift/io/csv.h"
#include "docsift/io/input_file.h"
#include "docsift/io/page_name.h"
#include "docsift/strict_json.h"

namespace docsift::eval {

namespace {

namespace fs = std::filesystem;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The whole of an input file, with io/input_file.h's errors for one that is not there (2) or
// cannot be read (3).
std::string read_input(const fs::path& path, const std::string& role) {
  std::ifstream in = io::open_input(path, role);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) io::throw_input_error(path, role, EIO);
  return text;
}

// A CSV input parsed: its syntax errors (io/csv.h's FileError, naming the line) are a malformed
// input (7).
io::CsvTable read_csv_input(const fs::path& path, const std::string& role) {
  const std::string text = read_input(path, role);
  try {
    return io::parse_csv(text, path.string());
  } catch (const FileError& e) {
    throw MalformedInputError(e.what());
  }
}

// The records of a CSV table in the ground-truth layout; `header` gets its field columns.
Records records_of(const io::CsvTable& table, const fs::path& path, std::vector<std::string>* header) {
  const auto image_column = std::find(table.header.begin(), table.header.end(), "image_file");
  if (image_column == table.header.end()) throw MalformedInputError(path.string() + ": no image_file column");
  const auto image_index = static_cast<std::size_t>(image_column - table.header.begin());
  if (header != nullptr) {
    for (std::size_t c = 0; c < table.header.size(); ++c) {
      if (c != image_index) header->push_back(table.header[c]);
    }
  }
  Records records;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    // "x.pdf#page=1" and "x.pdf" are one document (a one-page file keeps its plain name).
    const std::string image(io::document_key(table.rows[r][image_index]));
    if (image.empty()) {
      throw MalformedInputError(path.string() + ": row " + std::to_string(r + 2) + " has no image_file");
    }
    if (records.count(image) != 0) throw MalformedInputError(path.string() + ": image " + image + " appears twice");
    auto& fields = records[image];
    for (std::size_t c = 0; c < table.header.size(); ++c) {
      if (c != image_index) fields[table.header[c]] = table.rows[r][c];
    }
  }
  return records;
}

// Each non-blank line of a JSONL file, parsed, to `visit` with "path:LINE" for its messages. A
// line that is not JSON is malformed, except a torn last line when `torn_tail_ok` (a run killed
// mid-write), which ends the file.
void for_each_json_line(const fs::path& path, const std::string& role, bool torn_tail_ok,
                        const std::function<void(const nlohmann::json&, const std::string& where)>& visit) {
  std::ifstream in = io::open_input(path, role);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(number);
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      if (torn_tail_ok && in.peek() == std::char_traits<char>::eof()) break;
      throw MalformedInputError(where + ": not JSON");
    }
    visit(json, where);
  }
  if (in.bad()) io::throw_input_error(path, role, EIO);
}

// A record's "confidence" object (the run writes it, docs/run.md), checked: field → a number in
// [0, 1]. False when the record has none.
bool read_record_confidences(const nlohmann::json& json, const std::string& where, std::map<std::string, double>& out) {
  const auto found = json.find("confidence");
  if (found == json.end() || found->is_null()) return false;
  if (!found->is_object()) throw MalformedInputError(where + ": \"confidence\" is not an object");
  for (const auto& [field, value] : found->items()) {
    const double c = value.is_number() ? value.get<double>() : -1;
    if (!(c >= 0 && c <= 1)) throw MalformedInputError(where + ": the confidence of " + field + " is not a number in [0, 1]");
    out[field] = c;
  }
  return true;
}

// A journal's records, last per file; `failed` gets the files whose last record failed,
// `columns` the field names of the ok ones and `confidences` their confidences.
Records read_journal(const fs::path& path, const std::string& role, std::vector<std::string>* failed,
                     std::optional<std::vector<std::string>>* columns,
                     std::optional<Confidences>* confidences = nullptr) {
  Records records;
  Confidences confidence_map;
  bool any_confidence = false;
  std::set<std::string> failed_set, column_set;
  bool any_ok = false;
  for_each_json_line(path, role, /*torn_tail_ok=*/true, [&](const nlohmann::json& json, const std::string& where) {
    journal::Record r;
    try {
      r = journal::Record::from_json(json, where);
    } catch (const FileError& e) {
      throw MalformedInputError(e.what());
    }
    const std::string image(io::document_key(fs::path(r.file).filename().string()));
    // A later record for the same file replaces the earlier one. Any record but an ok one (a
    // failure, or a run's marker for a failed page since gone) leaves the page without a
    // prediction, as the run's CSV has no row for it.
    confidence_map.erase(image);
    if (!r.ok()) {
      records.erase(image);
      if (r.status == journal::Record::Status::Failed) {
        failed_set.insert(image);
      } else {
        failed_set.erase(image);
      }
      return;
    }
    failed_set.erase(image);
    any_ok = true;
    auto& fields = records[image];
    fields.clear();
    if (r.fields) {
      fields.insert(r.fields->begin(), r.fields->end());
      for (const auto& [field, value] : *r.fields) column_set.insert(field);
    }
    // Only a record that has confidences gets an entry: a run reviews nothing on a page without.
    std::map<std::string, double> page_confidences;
    if (confidences != nullptr && read_record_confidences(json, where, page_confidences)) {
      confidence_map[image] = std::move(page_confidences);
      any_confidence = true;
    }
  });
  if (confidences != nullptr && any_confidence) *confidences = std::move(confidence_map);
  if (failed != nullptr) failed->assign(failed_set.begin(), failed_set.end());
  if (columns != nullptr && any_ok) *columns = std::vector<std::string>(column_set.begin(), column_set.end());
  return records;
}

}  // namespace

Records read_records_csv(const fs::path& path, const std::string& role) {
  return records_of(read_csv_input(path, role), path, nullptr);
}

Records read_records_jsonl(const fs::path& path, const std::string& role) {
  return read_journal(path, role, nullptr, nullptr);
}

PredictionFile read_prediction_file(const fs::path& path, const std::string& role) {
  PredictionFile file;
  if (path.extension() == ".jsonl") {
    file.records = read_journal(path, role, &file.failed, &file.columns, &file.confidences);
  } else {
    std::vector<std::string> header;
    file.records = records_of(read_csv_input(path, role), path, &header);
    file.columns = std::move(header);
  }
  return file;
}

Records read_predictions(const fs::path& path) { return read_prediction_file(path).records; }

Records read_truth_jsonl(const fs::path& path, const std::vector<std::string>& field_names, const std::string& role) {
  Records records;
  for_each_json_line(path, role, /*torn_tail_ok=*/false, [&](const nlohmann::json& doc, const std::string& where) {
    if (!doc.is_object()) throw MalformedInputError(where + ": not a JSON object");
    if (doc.contains("status") && doc.contains("timings_s")) {
      throw ConfigError("GT " + path.string() + " is a run journal, which holds predictions; the order is docsift "
                        "eval PRED GT");
    }
    const auto name = doc.find("image_file");
    if (name == doc.end() || !name->is_string() || name->get<std::string>().empty()) {
      throw MalformedInputError(where + ": no \"image_file\" string");
    }
    const std::string image(io::document_key(name->get<std::string>()));
    if (records.count(image) != 0) throw MalformedInputError(where + ": image " + image + " appears twice");
    auto& fields = records[image];
    for (const std::string& field : field_names) fields[field] = "N/A";
    for (const auto& [key, value] : doc.items()) {
      if (key != "image_file") fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  });
  return records;
}

nlohmann::json read_baseline(const fs::path& path, const std::string& role) {
  const std::string text = read_input(path, role);
  try {
    return parse_json_strict(text, path.string(), /*max_depth=*/16);
  } catch (const FileError& e) {
    throw MalformedInputError(e.what());
  }
}

std::vector<std::string> check_prediction_columns(const extract::FieldSchema& schema, const Records& truth,
                                                  const std::optional<std::vector<std::string>>& columns,
                                                  const std::string& label, bool allow_missing) {
  if (!columns) return {};  // a journal with no ok record: nothing to check, coverage says the rest
  const std::vector<std::string> names = schema.names();
  std::string unknown;
  std::size_t unknown_count = 0;
  for (const std::string& column : *columns) {
    if (std::find(names.begin(), names.end(), column) != names.end()) continue;
    ++unknown_count;
    // A field in another case first ("total"), else the nearest spelling ("TOTL").
    std::string meant;
    for (const std::string& name : names) {
      if (upper(name) == upper(column)) meant = name;
    }
    if (meant.empty()) meant = closest_match(upper(column), names);
    unknown += (unknown.empty() ? "" : ", ") + column + (meant.empty() ? "" : " (did you mean " + meant + "?)");
  }
  if (!unknown.empty()) {
    throw ConfigError(label + ": unknown column" + (unknown_count == 1 ? " " : "s ") + unknown +
                      "; a column names a field of " + schema.source + ", exactly");
  }
  std::vector<std::string> missing;
  if (truth.empty()) return missing;
  for (const std::string& name : names) {
    if (truth.begin()->second.count(name) != 0 && std::find(columns->begin(), columns->end(), name) == columns->end()) {
      missing.push_back(name);
    }
  }
  if (!missing.empty() && !allow_missing) {
    std::string list;
    for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
    throw ConfigError(label + " has no column for " + list + ", which the truth has; --allow-missing-fields scores the "
                      "other fields and leaves these out");
  }
  return missing;
}

void Counts::add(const Counts& o) {
  tp += o.tp;
  fp += o.fp;
  fn += o.fn;
  tn += o.tn;
}

double Counts::precision() const {
  if (tp + fp > 0) return tp / (tp + fp);
  return tn > 0 && fn == 0 ? 1.0 : 0.0;
}
double Counts::recall() const {
  if (tp + fn > 0) return tp / (tp + fn);
  return tn > 0 && fp == 0 ? 1.0 : 0.0;
}
double Counts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

double Evaluation::coverage() const {
  return images.empty() ? 0.0
                        : static_cast<double>(images.size() - missing_predictions.size()) / static_cast<double>(images.size());
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
               double score, bool has_prediction) {
  if (kept.size() == kMissesKept) {
    if (!(score < kept.front().score)) return;
    std::pop_heap(kept.begin(), kept.end(), worse);
    kept.pop_back();
  }
  kept.push_back({image, truth, predicted, score, has_prediction});
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
                    const std::string& truth_label, const extract::ScoringRules& rules,
                    const std::vector<std::string>& not_predicted) {
  if (truth.empty()) throw MalformedInputError(truth_label + ": no images in the ground truth");
  Evaluation e;
  e.rules = rules;
  const bool by_type = rules.rules == extract::RuleSet::kDocsift;
  // A ground truth with some of the schema's columns scores those and names the rest.
  std::vector<const extract::Field*> scored_fields;
  for (const extract::Field& f : schema.fields) {
    if (truth.begin()->second.count(f.name) == 0) {
      e.fields_left_out.push_back(f.name);
    } else if (std::find(not_predicted.begin(), not_predicted.end(), f.name) != not_predicted.end()) {
      e.fields_not_predicted.push_back(f.name);
    } else {
      e.fields.push_back(f.name);
      scored_fields.push_back(&f);
    }
  }
  if (scored_fields.empty()) {
    if (!e.fields_not_predicted.empty()) {
      throw ConfigError("the predictions have a column for none of the fields the truth has; nothing to score");
    }
    throw MalformedInputError(truth_label + ": no column for any field of " + schema.source +
                              " (is it a ground-truth CSV?)");
  }
  const std::map<std::string, std::string> no_prediction;
  std::map<std::string, std::pair<double, int>> per_field, per_type;
  std::vector<double> image_accuracies;
  double sum = 0;
  for (const auto& [image, truth_fields] : truth) {
    ImageScore score;
    score.image = image;
    const auto type_it = truth_fields.find("DOCUMENT_TYPE");
    score.document_type = type_it == truth_fields.end() ? "" : type_it->second;
    const auto predicted_it = predictions.find(image);
    score.predicted = predicted_it != predictions.end();
    if (!score.predicted) e.missing_predictions.push_back(image);
    // A page with no prediction is still a case in each of its fields, so that a field's score
    // and counts cover the whole truth whichever pages were predicted (docs/eval.md, "Scoring").
    const auto& predicted = score.predicted ? predicted_it->second : no_prediction;
    double image_sum = 0;
    std::size_t scored = 0;
    Counts& type_counts = e.document_type_counts[score.document_type];
    for (const extract::Field* field : scored_fields) {
      const extract::Field& f = *field;
      // The reference's first rules score every field of every document (as reference-2025 must).
      if (by_type && !f.applies(score.document_type)) continue;
      ++scored;
      const auto p = predicted.find(f.name);
      const std::string& value = p == predicted.end() ? std::string() : p->second;
      const std::string& expected = truth_fields.at(f.name);
      double s = 0;
      Counts c;
      if (score.predicted) {
        s = score_field(f.type, value, expected, rules, f.items);
        c = count_case(value, expected, s);
      } else {
        c.fn = 1;
      }
      score.fields[f.name] = s;
      image_sum += s;
      per_field[f.name].first += s;
      per_field[f.name].second += 1;
      e.field_counts[f.name].add(c);
      type_counts.add(c);
      e.counts.add(c);
      if (s < 1.0) {
        ++e.field_miss_count[f.name];
        keep_miss(e.field_misses[f.name], image, expected, value, s, score.predicted);
      }
    }
    score.accuracy = scored == 0 ? 0.0 : image_sum / static_cast<double>(scored);
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
      // No prediction is null, not "": an empty value is a prediction of nothing.
      listed.push_back({{"image", miss.image},
                        {"truth", miss.truth},
                        {"predicted", miss.has_prediction ? nlohmann::json(miss.predicted) : nlohmann::json()},
                        {"score", miss.score}});
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
          {"money_tolerance", e.rules.money_tolerance},
          {"overall", e.overall},
          {"coverage", e.coverage()},
          {"band", band(e.overall)},
          {"image_median", e.image_median},
          {"overall_counts", counts_json(e.counts)},
          {"images_scored", e.images.size()},
          {"fields_left_out", e.fields_left_out},
          {"fields_not_predicted", e.fields_not_predicted},
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
  if (!e.missing_predictions.empty()) {
    out << "; " << e.missing_predictions.size() << " without a prediction (0 in each of their fields; coverage "
        << fixed(e.coverage()) << ")";
  }
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
  if (!e.missing_predictions.empty()) {
    out << "; " << e.missing_predictions.size() << " without a prediction (coverage " << fixed(e.coverage()) << ")";
  }
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
      out << "| " << cell(miss.image) << " | " << cell(miss.truth) << " | "
          << (miss.has_prediction ? cell(miss.predicted) : "*no prediction*") << " | "
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
