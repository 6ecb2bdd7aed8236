// `docsift eval` scoring tables row by row (docs/eval.md, "Rows"): a run over samples/ against
// samples/ground_truth_rows.jsonl, the rows read from the journal and from line_items.csv beside
// predictions.csv, the figures on stdout and in both reports adding up; the fields scored as
// against ground_truth.csv; one warning when PRED has no rows; a malformed line_items refused.
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kSamples = kSource / "samples";
const fs::path kRowsTruth = kSamples / "ground_truth_rows.jsonl";

struct Figures {
  long truth = -1, predicted = -1, right = -1;
  double precision = -1, recall = -1, f1 = -1;
};

// The lines of the "rows:" section on stdout, by name ("rows", "cells", "description", ...).
std::map<std::string, Figures> rows_section(const std::string& out) {
  std::map<std::string, Figures> found;
  const auto at = out.find("\nrows: the line items of ");
  if (at == std::string::npos) return found;
  std::istringstream in(out.substr(at + 1));
  std::string line;
  std::getline(in, line);  // the title
  std::getline(in, line);  // the header
  while (std::getline(in, line) && !line.empty()) {
    if (line.find(" predicted rows with a confidence: ") != std::string::npos) continue;
    std::istringstream fields(line);
    std::string name;
    Figures f;
    fields >> name >> f.truth >> f.predicted >> f.right >> f.precision >> f.recall >> f.f1;
    found[name] = f;
  }
  return found;
}

// The truth's rows and cells, per column, counted from the file itself.
std::map<std::string, long> truth_counts() {
  std::map<std::string, long> counts;
  std::istringstream in(file_bytes(kRowsTruth));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto doc = nlohmann::json::parse(line);
    for (const auto& row : doc.at("line_items")) {
      ++counts["rows"];
      for (const auto& [column, cell] : row.items()) {
        ++counts[column];
        ++counts["cells"];
      }
    }
  }
  return counts;
}

double ratio(long part, long whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

TEST_CASE("eval: the samples' rows against ground_truth_rows.jsonl, from the journal and the CSV") {
  TempDir dir;
  REQUIRE(run_docsift("run " + q(kSamples) + " --out " + q(dir / "r") + " --quiet").exit_code == 0);
  const auto truth = truth_counts();
  REQUIRE(truth.at("rows") > 50);  // a table on every sample page
  const CliResult fields_only = run_docsift("eval " + q(dir / "r" / "results.jsonl") + " " +
                                            q(kSamples / "ground_truth.csv"));
  REQUIRE(fields_only.exit_code == 0);
  CHECK(fields_only.out.find("\nrows: ") == std::string::npos);  // a truth without rows
  std::string first_section;
  for (const char* pred : {"results.jsonl", "predictions.csv"}) {
    CAPTURE(pred);
    const CliResult r =
        run_docsift("eval " + q(dir / "r" / pred) + " " + q(kRowsTruth) + " --report " +
                    q(dir / "e.json") + " --report " + q(dir / "e.md"));
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("rows") == std::string::npos);  // no warning: PRED has rows
    // The fields score exactly as against ground_truth.csv: the same table, then the rows.
    const auto rows_at = r.out.find("\nrows: the line items of 20 documents\n");
    REQUIRE(rows_at != std::string::npos);
    CHECK(r.out.substr(0, rows_at + 1) ==
          fields_only.out.substr(0, fields_only.out.find("\nconfidence: ") + 1));
    const auto section = rows_section(r.out);
    REQUIRE(section.count("rows") == 1);
    REQUIRE(section.count("cells") == 1);
    const Figures& rows = section.at("rows");
    const Figures& cells = section.at("cells");
    CHECK(rows.truth == truth.at("rows"));
    CHECK(cells.truth == truth.at("cells"));
    CHECK(rows.predicted > 0);
    CHECK(rows.right <= rows.truth);
    CHECK(rows.right <= rows.predicted);
    CHECK(cells.right <= cells.truth);
    CHECK(cells.right <= cells.predicted);
    CHECK(cells.right >= rows.right);  // a right row has every truth cell right, at least one
    for (const Figures* f : {&rows, &cells}) {
      CHECK(f->precision == doctest::Approx(ratio(f->right, f->predicted)).epsilon(0.001));
      CHECK(f->recall == doctest::Approx(ratio(f->right, f->truth)).epsilon(0.001));
    }
    // The columns the truth gives, each with its count; they add up to the cells.
    long truth_sum = 0, predicted_sum = 0, right_sum = 0;
    for (const char* column : {"description", "quantity", "unit_price"}) {
      CAPTURE(column);
      REQUIRE(section.count(column) == 1);
      const Figures& c = section.at(column);
      CHECK(c.truth == truth.at(column));
      CHECK(c.right <= c.truth);
      truth_sum += c.truth;
      predicted_sum += c.predicted;
      right_sum += c.right;
    }
    CHECK(section.size() == 5);  // no other column: the truth gives none
    CHECK(truth_sum == cells.truth);
    CHECK(predicted_sum == cells.predicted);
    CHECK(right_sum == cells.right);
    // The reports say the same.
    const auto json = nlohmann::json::parse(file_bytes(dir / "e.json")).at("rows");
    CHECK(json.at("documents") == 20);
    CHECK(json.at("rows").at("right") == rows.right);
    CHECK(json.at("cells").at("predicted") == cells.predicted);
    CHECK(json.at("columns").at("quantity").at("right") == section.at("quantity").right);
    // Every predicted row carries the run's confidence, and eval judges each one: the right ones
    // are the right rows, and the line on stdout gives the same count.
    const auto& confidence = json.at("confidence");
    CHECK(confidence.at("rows") == rows.predicted);
    CHECK(confidence.at("judged").size() == static_cast<std::size_t>(rows.predicted));
    CHECK(confidence.at("right") == rows.right);
    CHECK(confidence.at("ece").get<double>() >= 0);
    const std::string said = std::string("\n")
                                 .append(std::to_string(rows.predicted))
                                 .append(" predicted rows with a confidence: mean ");
    CHECK(r.out.find(said) != std::string::npos);
    const std::string md = file_bytes(dir / "e.md");
    CHECK(md.find("\n## Rows\n") != std::string::npos);
    CHECK(md.find("| rows | " + std::to_string(rows.truth) + " | " +
                  std::to_string(rows.predicted) + " | " + std::to_string(rows.right) + " | ") !=
          std::string::npos);
    // The journal and the CSV give the same rows.
    const std::string text = r.out.substr(rows_at, r.out.find("\nconfidence: ") - rows_at);
    if (first_section.empty()) {
      first_section = text;
    } else {
      CHECK(text == first_section);
    }
  }
}

TEST_CASE("eval: a truth with rows and a PRED without: one warning, the fields scored") {
  TempDir dir;
  // A predictions.csv with no line_items.csv beside it: the truth itself as the predictions.
  fs::create_directories(dir / "p");
  fs::copy_file(kSamples / "ground_truth.csv", dir / "p" / "predictions.csv");
  const CliResult r = run_docsift("eval " + q(dir / "p" / "predictions.csv") + " " + q(kRowsTruth) +
                                  " --report " + q(dir / "e.json"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\nrows: ") == std::string::npos);
  CHECK(r.out.find("overall 1.000 (good) over 20 images") != std::string::npos);
  CHECK_MESSAGE(r.err.find("warning: " + kRowsTruth.string() + " has rows (line_items) and PRED " +
                           (dir / "p" / "predictions.csv").string() +
                           " has no line_items.csv beside it: the rows are not scored\n") !=
                    std::string::npos,
                r.err);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(nlohmann::json::parse(file_bytes(dir / "e.json")).contains("rows"));
}

TEST_CASE("eval: a truth's malformed line_items is exit 7, one line naming the file and line") {
  TempDir dir;
  write_text(dir / "pred.csv", file_bytes(kSamples / "ground_truth.csv"));
  write_text(dir / "t.jsonl",
             "{\"image_file\":\"synthetic_invoice_001.png\",\"line_items\":[]}\n"
             "{\"image_file\":\"synthetic_invoice_002.png\",\"line_items\":[{\"quantity\":"
             "false}]}\n");
  const CliResult r = run_docsift("eval " + q(dir / "pred.csv") + " " + q(dir / "t.jsonl"));
  CHECK(r.exit_code == 7);
  CHECK_MESSAGE(r.err.find("docsift: error: " + (dir / "t.jsonl").string() +
                           ":2: line_items row 1: \"quantity\" is not a string or a number\n") !=
                    std::string::npos,
                r.err);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
