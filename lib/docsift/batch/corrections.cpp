#include "docsift/batch/corrections.h"
#include "docsift/batch/corrections_csv.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <vector>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/outputs.h"
#include "docsift/batch/record.h"
#include "docsift/batch/run_stages.h"
#include "docsift/batch/sink.h"
#include "docsift/error.h"
#include "docsift/extract/field.h"
#include "docsift/io/csv.h"
#include "docsift/io/journal.h"
#include "docsift/io/output_file.h"
#include "docsift/resilience/fault_spec.h"
#include "docsift/strict_json.h"
#include "docsift/timestamp.h"

namespace docsift::batch {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

constexpr const char* kCommand = "docsift review apply";

// predictions.csv's field columns: the run's fields; empty when the folder has no tables.
std::vector<std::string> table_fields(const fs::path& predictions) {
  std::error_code ec;
  if (!fs::exists(predictions, ec)) return {};
  std::ifstream in(predictions, std::ios::binary);
  std::string header;
  if (!in)
    throw InputUnreadableError(predictions.string() + ": cannot read it: " + std::strerror(errno));
  if (!std::getline(in, header)) return {};
  io::CsvTable table;
  try {
    table = io::parse_csv(header + "\n", predictions.string());
  } catch (const FileError& e) {
    throw MalformedInputError(e.what());
  }
  if (table.header.empty() || table.header.front() != "image_file") {
    throw MalformedInputError(predictions.string() + ": its header does not start with image_file");
  }
  return {table.header.begin() + 1, table.header.end()};
}

// A page with a filled row: its latest record, as read and as its JSON line.
struct PageNow {
  json line;
  Record record;
};

// One correction to journal.
struct Change {
  std::string corrected, original;
  std::size_t line = 0;
};

// `line` (a page's latest record) with `changes` applied: the corrected values, confidence 1.0
// (none for a value corrected to missing: a person's N/A), out of the review queue, and
// the originals kept under "corrections" (the first one, when a field is corrected again).
json corrected_line(json line, const std::map<std::string, Change>& changes,
                    const std::string& at) {
  for (const auto& [field, c] : changes) {
    line["fields"][field] = c.corrected;
    if (line.contains("confidence") && line["confidence"].is_object()) {
      if (extract::is_missing(c.corrected)) {
        line["confidence"].erase(field);
      } else {
        line["confidence"][field] = 1.0;
      }
    }
    if (field == "DOCUMENT_TYPE" && line.contains("document_type_confidence") &&
        line["document_type_confidence"].is_number()) {
      line["document_type_confidence"] = 1.0;
    }
    if (line.contains("review") && line["review"].is_array()) {
      json kept = json::array();
      for (const auto& name : line["review"]) {
        if (name != field) kept.push_back(name);
      }
      line["review"] = kept;
    }
    for (const char* key : {"review_reasons", "review_thresholds"}) {
      if (line.contains(key) && line[key].is_object()) line[key].erase(field);
    }
    if (!line.contains("corrections") || !line["corrections"].is_object())
      line["corrections"] = json::object();
    if (!line["corrections"].contains(field))
      line["corrections"][field] = {{"original", c.original}, {"at", at}};
  }
  return line;
}

// What the folder's derived files are once rebuilt from the journal's latest records: each table's
// text (the rows TableSink writes) and summary.json with the totals of outputs.h (Totals).
struct Derived {
  std::map<Output, std::string> tables;
  std::optional<json> summary;
};

Derived derive(const fs::path& journal, const std::map<std::string, Latest>& latest,
               const std::vector<std::string>& fields, const std::optional<json>& summary_now,
               const fs::path& summary_path) {
  Derived d;
  Totals totals;
  if (!fields.empty()) {
    d.tables[Output::kPredictions] = csv_header(fields);
    d.tables[Output::kConfidence] = csv_header(fields);
    d.tables[Output::kReview] = review_header();
    d.tables[Output::kDocuments] = csv_header(fields);
    d.tables[Output::kLineItems] = line_items_header();
  }
  DocumentRows documents(fields);
  for_each_latest(journal, latest, [&](const Record& record) {
    totals.add(record);
    if (fields.empty()) return;
    d.tables[Output::kPredictions] += csv_row(record, fields);
    d.tables[Output::kConfidence] += confidence_row(record, fields);
    d.tables[Output::kReview] += review_rows(record);
    d.tables[Output::kDocuments] += documents.add(record);
    d.tables[Output::kLineItems] += line_item_rows(record);
  });
  if (summary_now) {
    // The run's own facts stay, read back typed (journal/record.h: Summary); the totals over the
    // journal are Totals', as run and merge write them.
    Summary summary = Summary::from_json(*summary_now, summary_path.string());
    totals.describe(summary);
    d.summary = summary.to_json();
  }
  return d;
}

std::optional<std::string> file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether the derived files on disk are what the journal makes.
bool current(const OutputFolder& folder, const Derived& d, const std::optional<json>& summary_now) {
  for (const auto& [table, text] : d.tables) {
    if (file_text(folder.file(out_files::of(table))) != text) return false;
  }
  return !d.summary || d.summary == summary_now;
}

// The derived files written whole from the journal: the tables through Tables::rebuild (as a run
// and --resume write them), then summary.json.
void rewrite(const OutputFolder& folder, const fs::path& journal,
             const std::map<std::string, Latest>& latest, const std::vector<std::string>& fields,
             const Derived& d, const resilience::FaultPlan& faults) {
  if (!fields.empty()) {
    Tables tables = folder.tables({config::OutputFormat::Csv}, fields);
    tables.rebuild([&](const std::function<void(const Record&)>& visit) {
      for_each_latest(journal, latest, visit);
    });
  }
  resilience::fault_at(faults, resilience::FaultPoint::kRebuilt, 1, kCommand);
  if (d.summary) io::write_file_atomic(folder.file(out_files::kSummary), d.summary->dump(2) + "\n");
}

using Changes = std::map<std::string, std::map<std::string, Change>>;  // page → field → correction

// The corrections the rows make, each row checked against the page's latest record (what
// apply_corrections documents); rows the journal already holds are counted in `report`.
Changes check_rows(const std::vector<Row>& rows, const std::map<std::string, PageNow>& pages,
                   const std::vector<std::string>& fields, const std::string& label,
                   const fs::path& journal, ApplyReport& report) {
  Changes changes;
  for (const Row& row : rows) {
    const std::string where = label + ":" + std::to_string(row.line) + ": " +
                              display_name(row.page) + " " + row.field + ": ";
    const auto refuse = [&](const std::string& problem) {
      return MalformedInputError(where + problem + "; nothing was applied");
    };
    const auto page = pages.find(row.page);
    if (page == pages.end()) throw refuse("no such page in " + journal.string());
    const Record& r = page->second.record;
    if (!r.ok())
      throw refuse(std::string("the page's latest record is ") + (r.gone() ? "gone" : "failed") +
                   ", so it has no values to correct");
    const bool known = fields.empty()
                           ? r.fields && r.fields->count(row.field) != 0
                           : std::find(fields.begin(), fields.end(), row.field) != fields.end();
    if (!known) {
      std::string names;
      for (const auto& f : fields) names += (names.empty() ? "" : ", ") + f;
      throw refuse("not a field of this run" +
                   (names.empty() ? "" : " (its fields: " + names + ")"));
    }
    const auto value =
        r.fields ? r.fields->find(row.field) : std::map<std::string, std::string>::const_iterator{};
    const std::string now = r.fields && value != r.fields->end() ? value->second : "N/A";
    const Record::Correction* prior = nullptr;
    if (r.corrections) {
      if (const auto c = r.corrections->find(row.field); c != r.corrections->end())
        prior = &c->second;
    }
    if (prior && row.corrected == now && (row.value == prior->original || row.value == now)) {
      ++report.already;  // the journal holds this correction already
      continue;
    }
    if (row.value != now) {
      throw refuse(
          "the file's value is \"" + row.value + "\", but the journal's latest is \"" + now +
          "\" (the page was read again, or the cell was changed): correct the value as it is now");
    }
    auto& page_changes = changes[row.page];
    if (const auto twice = page_changes.find(row.field); twice != page_changes.end()) {
      if (twice->second.corrected != row.corrected) {
        throw refuse("corrected to \"" + row.corrected + "\" here and to \"" +
                     twice->second.corrected + "\" on line " + std::to_string(twice->second.line));
      }
      ++report.already;
      continue;
    }
    page_changes[row.field] = Change{row.corrected, prior ? prior->original : now, row.line};
  }
  return changes;
}

// The commit point: each page's new record appended and fsynced (io/journal.h), `latest` kept
// current.
void journal_changes(const fs::path& journal_path, const Changes& changes,
                     const std::map<std::string, PageNow>& pages,
                     std::map<std::string, Latest>& latest, const resilience::FaultPlan& faults,
                     ApplyReport& report) {
  io::Journal journal(journal_path, /*resume=*/true,
                      [](const json&, std::uint64_t) {});  // a torn last line cut
  const std::string at = rfc3339_now();
  for (const auto& [key, page_changes] : changes) {
    const json line = corrected_line(pages.at(key).line, page_changes, at);
    const Record record = Record::from_journal(line);  // the shape every reader checks
    std::uint64_t offset = 0;
    try {
      offset = journal.append(line);
    } catch (const io::JournalWriteError& e) {
      throw OutputWriteError(std::string(e.what()) +
                             "; the pages before it are applied: apply the file again to finish");
    }
    latest[key] = Latest{offset, record.status, record.source, true};
    report.applied += static_cast<int>(page_changes.size());
    ++report.pages;
    resilience::fault_at(faults, resilience::FaultPoint::kApplied, report.pages, kCommand);
  }
}

// summary.json as it is, when there is one: throws MalformedInputError when it is not a JSON
// object.
std::optional<json> read_summary(const fs::path& path) {
  const auto text = file_text(path);
  if (!text) return std::nullopt;
  try {
    json summary = json::parse(*text);
    if (summary.is_object()) return summary;
  } catch (const json::exception&) {
  }
  throw MalformedInputError(path.string() +
                            ": not a JSON object; `docsift run --resume` writes it again");
}

}  // namespace

ApplyReport apply_corrections(const ApplyOptions& o) {
  const resilience::FaultPlan faults = resilience::FaultPlan::from_environment();
  ApplyReport report;
  const fs::path journal_path = journal::journal_to_read(o.results, o.results.string());
  report.journal = journal_path;
  const fs::path csv = o.file ? *o.file : o.results / out_files::kReview;
  const std::vector<Row> rows = read_rows(csv, report.empty);

  // From here on no run may write the folder (a running one: exit 3).
  const OutputFolder folder(o.results, "review");
  const std::optional<json> summary_now = read_summary(folder.file(out_files::kSummary));
  const std::vector<std::string> fields = table_fields(folder.file(out_files::kPredictions));

  // The journal's latest record of every page (for the rebuild), and of the pages the CSV names,
  // kept.
  std::set<std::string> wanted;
  for (const Row& row : rows) wanted.insert(row.page);
  std::map<std::string, Latest> latest;
  std::map<std::string, PageNow> pages;
  io::read_journal(journal_path, [&](const json& line, std::uint64_t offset) {
    Record record = Record::from_journal(line);
    const std::string key = record.key();  // before the record is moved below
    latest[key] = Latest{offset, record.status, record.source, record.corrections.has_value()};
    if (wanted.count(key)) pages[key] = PageNow{line, std::move(record)};
  });

  // Every row checked before anything is written; then the journal, the commit point.
  const Changes changes = check_rows(rows, pages, fields, csv.string(), journal_path, report);
  if (!changes.empty()) journal_changes(journal_path, changes, pages, latest, faults, report);

  // The tables and summary.json from the journal: written whenever they differ from it (always
  // after new records; after a killed apply, on the next one), else left untouched.
  const Derived derived =
      derive(journal_path, latest, fields, summary_now, folder.file(out_files::kSummary));
  if (!changes.empty() || !current(folder, derived, summary_now)) {
    rewrite(folder, journal_path, latest, fields, derived, faults);
    report.rewrote_outputs = true;
  }
  return report;
}

}  // namespace docsift::batch
