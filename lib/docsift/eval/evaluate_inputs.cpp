// evaluate.h's readers: ground truth and predictions (CSV, a run's journal, truth as JSONL), an
// earlier report as --baseline, and the check of the predictions' columns against the schema.
#include "docsift/eval/evaluate.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/format.h"
#include "docsift/io/csv.h"
#include "docsift/io/input_file.h"
#include "docsift/io/page_name.h"
#include "docsift/journal/page_arithmetic.h"
#include "docsift/journal/record.h"
#include "docsift/strict_json.h"

namespace docsift::eval {

namespace {

namespace fs = std::filesystem;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
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
Records records_of(const io::CsvTable& table, const fs::path& path,
                   std::vector<std::string>* header) {
  const auto image_column = std::find(table.header.begin(), table.header.end(), "image_file");
  if (image_column == table.header.end())
    throw MalformedInputError(path.string() + ": no image_file column");
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
      throw MalformedInputError(path.string() + ": row " + std::to_string(r + 2) +
                                " has no image_file");
    }
    if (records.count(image) != 0)
      throw MalformedInputError(path.string() + ": image " + image + " appears twice");
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
void for_each_json_line(
    const fs::path& path, const std::string& role, bool torn_tail_ok,
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

// A journal's record for page `image` in what it read before its corrections: the original values
// of a corrected record's fields, and the confidences of the page's last uncorrected record. A page
// read again (an uncorrected or failed record) is its new reading's.
void add_original(const journal::Record& r, const std::string& image, Originals& o) {
  if (!r.ok() || !r.corrections) {
    o.values.erase(image);
    if (r.ok() && r.confidence) o.confidences[image] = *r.confidence;
    if (!r.ok() || !r.confidence) o.confidences.erase(image);
    return;
  }
  auto& values = o.values[image];
  values.clear();
  for (const auto& [field, c] : *r.corrections) values[field] = c.original;
}

// A journal's records, last per file, into `file`: the files whose last record failed, the field
// names of the ok ones, their confidences, their line_items, the fields their tables'
// arithmetic speaks against, and (`with_originals`) the values before their corrections.
void read_journal(const fs::path& path, const std::string& role, PredictionFile& file,
                  bool with_originals) {
  Records& records = file.records;
  Confidences confidence_map;
  DocumentRows row_map;
  bool any_confidence = false;
  std::set<std::string> failed_set, column_set;
  bool any_ok = false;
  for_each_json_line(
      path, role, /*torn_tail_ok=*/true, [&](const nlohmann::json& json, const std::string& where) {
        const journal::Record r =
            journal::Record::from_json(json, where);  // MalformedInputError: exit 7
        const std::string image(io::document_key(fs::path(r.file).filename().string()));
        if (with_originals) add_original(r, image, file.originals);
        // A later record for the same file replaces the earlier one. Any record but an ok one (a
        // failure, or a run's marker for a failed page since gone) leaves the page without a
        // prediction, as the run's CSV has no row for it.
        confidence_map.erase(image);
        row_map.erase(image);
        file.row_confidences.erase(image);
        file.doubts.erase(image);
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
        // Only a record that has confidences gets an entry: a run reviews nothing on a page
        // without. Checked in [0, 1] by the record's one reader (journal/record.h), as run, merge
        // and report do.
        if (r.confidence) {
          confidence_map[image] = *r.confidence;
          any_confidence = true;
        }
        if (r.line_items) {
          auto& page_rows = row_map[image];
          for (const auto& item : *r.line_items) {
            page_rows.push_back(row_of(item));
            file.row_confidences[image].push_back(item.confidence);
          }
        }
        if (auto off = journal::page_doubts(r); !off.empty()) file.doubts[image] = std::move(off);
      });
  // The confidences before a first correction, of the pages that have one.
  Confidences& before = file.originals.confidences;
  for (auto it = before.begin(); it != before.end();)
    it = file.originals.values.count(it->first) ? std::next(it) : before.erase(it);
  if (any_confidence) file.confidences = std::move(confidence_map);
  if (!row_map.empty()) file.rows = std::move(row_map);
  file.failed.assign(failed_set.begin(), failed_set.end());
  if (any_ok) file.columns = std::vector<std::string>(column_set.begin(), column_set.end());
}

}  // namespace

// The whole of an input file, with io/input_file.h's errors for one that is not there (2) or
// cannot be read (3).
std::string read_input(const std::filesystem::path& path, const std::string& role) {
  std::ifstream in = io::open_input(path, role);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) io::throw_input_error(path, role, EIO);
  return text;
}

Records read_records_csv(const fs::path& path, const std::string& role) {
  return records_of(read_csv_input(path, role), path, nullptr);
}

Records read_records_jsonl(const fs::path& path, const std::string& role) {
  PredictionFile file;
  read_journal(path, role, file, /*with_originals=*/false);
  return std::move(file.records);
}

PredictionFile read_prediction_file(const fs::path& path, const std::string& role,
                                    bool with_originals) {
  PredictionFile file;
  if (path.extension() == ".jsonl") {
    read_journal(path, role, file, with_originals);
  } else {
    std::vector<std::string> header;
    file.records = records_of(read_csv_input(path, role), path, &header);
    file.columns = std::move(header);
  }
  return file;
}

Records read_predictions(const fs::path& path) { return read_prediction_file(path).records; }

int Originals::count() const {
  int n = 0;
  for (const auto& [image, fields] : values) n += static_cast<int>(fields.size());
  return n;
}

void Originals::restore(Records& records) const {
  for (const auto& [image, fields] : values) {
    const auto page = records.find(image);
    if (page == records.end()) continue;
    for (const auto& [field, original] : fields) page->second[field] = original;
  }
}

void Originals::restore(Confidences& to) const {
  for (const auto& [image, fields] : confidences) {
    if (to.count(image)) to[image] = fields;
  }
}

Records read_truth_jsonl(const fs::path& path, const std::vector<std::string>& field_names,
                         const std::string& role, DocumentRows* rows) {
  Records records;
  for_each_json_line(
      path, role, /*torn_tail_ok=*/false, [&](const nlohmann::json& doc, const std::string& where) {
        if (!doc.is_object()) throw MalformedInputError(where + ": not a JSON object");
        if (doc.contains("status") && doc.contains("timings_s")) {
          throw ConfigError(
              "GT " + path.string() +
              " is a run journal, which holds predictions; the order is docsift eval PRED GT");
        }
        const auto name = doc.find("image_file");
        if (name == doc.end() || !name->is_string() || name->get<std::string>().empty()) {
          throw MalformedInputError(where + ": no \"image_file\" string");
        }
        const std::string image(io::document_key(name->get<std::string>()));
        if (records.count(image) != 0)
          throw MalformedInputError(where + ": image " + image + " appears twice");
        auto& fields = records[image];
        for (const std::string& field : field_names) fields[field] = "N/A";
        for (const auto& [key, value] : doc.items()) {
          if (key == "line_items") {
            std::vector<Row> table = truth_rows_of(value, where);  // checked whether kept or not
            if (rows != nullptr) (*rows)[image] = std::move(table);
          } else if (key != "image_file") {
            fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
          }
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

std::vector<std::string> check_prediction_columns(
    const extract::FieldSchema& schema, const Records& truth,
    const std::optional<std::vector<std::string>>& columns, const std::string& label,
    bool allow_missing) {
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
    // Shown escaped: a NUL would cut the message short, a line separator forge a line.
    unknown += (unknown.empty() ? "" : ", ") + printable(column) +
               (meant.empty() ? "" : " (did you mean " + meant + "?)");
  }
  if (!unknown.empty()) {
    throw ConfigError(label + ": unknown column" + (unknown_count == 1 ? " " : "s ") + unknown +
                      "; a column names a field of " + schema.source + ", exactly");
  }
  std::vector<std::string> missing;
  if (truth.empty()) return missing;
  for (const std::string& name : names) {
    if (truth.begin()->second.count(name) != 0 &&
        std::find(columns->begin(), columns->end(), name) == columns->end()) {
      missing.push_back(name);
    }
  }
  if (!missing.empty() && !allow_missing) {
    std::string list;
    for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
    throw ConfigError(label + " has no column for " + list +
                      ", which the truth has; --allow-missing-fields scores the other fields and "
                      "leaves these out");
  }
  return missing;
}

}  // namespace docsift::eval
