// `docsift eval` with confidences (docs/eval.md, "Confidences"): a hand-written journal
// whose values are the samples' truth except two TOTALs, with confidences chosen so that every
// figure can be worked by hand; confidence.csv beside predictions.csv; the thresholds file read
// back by the config; and the round trip run → eval --target-accuracy --write-thresholds → run
// --config, whose review queue must be the one eval predicted.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/io/csv.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kSamples = kSource / "samples";
const fs::path kTruth = kSamples / "ground_truth.csv";

bool is_missing(const std::string& v) { return v.empty() || v == "N/A" || v == "NOT_FOUND"; }

// The samples' truth as a journal: every page ok, its values the truth's, each value's confidence
// 0.95, except TOTAL: the k-th page that has one (in name order, k = 0…13) gets confidence
// (50 + 3k) / 100, and pages k = 0 and k = 5 read it wrong. Also written as predictions.csv and
// confidence.csv.
struct HandMade {
  std::string journal, predictions_csv, confidence_csv;
  int totals = 0;
};

std::string hundredths(int n) {
  const std::string digits = std::to_string(n);
  return "0." + std::string(digits.size() < 2 ? 2 - digits.size() : 0, '0') + digits;
}

HandMade hand_made() {
  const auto table = docsift::io::parse_csv(file_bytes(kTruth), kTruth.string());
  HandMade out;
  std::string header = "image_file";
  for (std::size_t c = 1; c < table.header.size(); ++c) header += "," + table.header[c];
  out.predictions_csv = out.confidence_csv = header + "\n";
  for (const auto& row : table.rows) {
    nlohmann::json fields = nlohmann::json::object(), confidence = nlohmann::json::object();
    std::string values_line = docsift::io::csv_field(row[0]), confidence_line = values_line;
    for (std::size_t c = 1; c < table.header.size(); ++c) {
      const std::string& field = table.header[c];
      std::string value = row[c], conf = "0.95";
      if (field == "TOTAL" && !is_missing(value)) {
        const int k = out.totals++;
        conf = hundredths(50 + 3 * k);
        if (k == 0 || k == 5) value = "$0.01";  // read wrong
      }
      fields[field] = value;
      values_line.append(",").append(docsift::io::csv_field(value));
      if (is_missing(value)) {
        confidence_line += ",";
        continue;
      }
      // The exact decimal text, as a run writes it, so the thresholds eval fits read as written.
      confidence[field] = nlohmann::json::parse(conf);
      confidence_line += "," + conf;
    }
    const nlohmann::json record = {{"file", (kSamples / row[0]).string()},
                                   {"status", "ok"},
                                   {"fields", fields},
                                   {"confidence", confidence},
                                   {"timings_s", {{"total", 0.1}}}};
    out.journal += record.dump() + "\n";
    out.predictions_csv += values_line + "\n";
    out.confidence_csv += confidence_line + "\n";
  }
  return out;
}

// Each field's review entries over a run's journal (the last record per file).
std::map<std::string, int> review_counts(const fs::path& journal) {
  std::map<std::string, nlohmann::json> last;
  std::string text = file_bytes(journal);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) {
      const auto record = nlohmann::json::parse(text.substr(start, end - start));
      last[record["file"].get<std::string>()] = record;
    }
    start = end + 1;
  }
  std::map<std::string, int> counts;
  for (const auto& [file, record] : last) {
    if (!record.contains("review")) continue;
    for (const auto& field : record["review"]) ++counts[field.get<std::string>()];
  }
  return counts;
}

}  // namespace

TEST_CASE(
    "eval: a journal's confidences give the risk-coverage table, ECE, the review figures and a "
    "fitted threshold") {
  TempDir dir;
  const HandMade made = hand_made();
  REQUIRE(made.totals == 14);
  write_text(dir / "results.jsonl", made.journal);
  const auto r = run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) +
                             " --target-accuracy 0.99 --write-thresholds " + q(dir / "t.yaml") +
                             " --report " + q(dir / "e.json") + " --report " + q(dir / "e.md"));
  REQUIRE(r.exit_code == 0);
  // The table: TOTAL's 14 values, 2 wrong; with a target, the figures at the fitted threshold
  // (0.68): 6 values under it, both wrong ones among them.
  CHECK(r.out.find("\nTOTAL                    14      0.857") != std::string::npos);
  CHECK(r.out.find("0.6800     6       2      2 of 2") != std::string::npos);
  CHECK(r.out.find("target accuracy 0.990") != std::string::npos);
  const auto json = nlohmann::json::parse(file_bytes(dir / "e.json"));
  const auto& c = json["confidence"];
  const auto& total = c["fields"]["TOTAL"];
  CHECK(total["values"] == 14);
  CHECK(total["correct"] == 12);
  // AURC by hand: risk 0 down to 0.68 (coverage 8/14), 1/9, 1/10 … 1/13 from 0.65 to 0.53, 2/14 at
  // 0.50.
  double aurc = 0;
  for (int accepted = 9; accepted <= 13; ++accepted) aurc += (1.0 / 14) * (1.0 / accepted);
  aurc += (1.0 / 14) * (2.0 / 14);
  CHECK(total["aurc"].get<double>() == doctest::Approx(aurc));
  // ECE by hand: TOTAL's bins 5 (0.50 0.53 0.56 0.59; one wrong), 6 (0.62 0.65 0.68; one wrong),
  // 7 (0.71 0.74 0.77), 8 (0.80 0.83 0.86 0.89).
  const double ece = (4.0 / 14) * std::abs(0.75 - 0.545) + (3.0 / 14) * std::abs(2.0 / 3 - 0.65) +
                     (3.0 / 14) * std::abs(1 - 0.74) + (4.0 / 14) * std::abs(1 - 0.845);
  CHECK(total["ece"].get<double>() == doctest::Approx(ece));
  CHECK(total["bins"][5]["count"] == 4);
  CHECK(total["risk_coverage"].size() == 14);
  CHECK(total["at_threshold"]["wrong_under"] == 2);
  // Without a target, the config's shipped review threshold for TOTAL is in force: Tesseract's
  // (0.945), as these confidences are, or the second recognizer's where the build reads with it by
  // default (0.93): all 14 under either.
  const auto plain = run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) +
                                 " --set ocr.recognizer=tesseract");
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("\nTOTAL                    14      0.857     0.043  0.162  0.9450     14   "
                       "   2      2 of 2") != std::string::npos);
  // The fit: the lowest threshold with no wrong value above it, 0.68, keeping 8 of 14.
  CHECK(total["fit"]["threshold"] == 0.68);
  CHECK(total["fit"]["accepted"] == 8);
  CHECK(total["fit"]["coverage"].get<double>() == doctest::Approx(8.0 / 14));
  CHECK(total["fit"]["errors_allowed"] == 0);
  CHECK(c["fields"]["ABN"]["fit"]["threshold"] == 0.95);
  // The default, over every value: (n − 2) of n reach 0.99 with all of them, so the lowest, 0.5.
  CHECK(c["thresholds"]["default"] == 0.5);
  // TOTAL's k = 0…5 are under 0.68; the two pages whose total was read wrong no longer add up
  // (SUBTOTAL + GST ≠ TOTAL), which queues their SUBTOTAL and GST too, however sure.
  CHECK(c["review"]["total"] == 10);
  CHECK(c["review"]["fields"]["TOTAL"] == 6);
  CHECK(c["review"]["fields"]["GST"] == 2);
  CHECK(c["review"]["fields"]["SUBTOTAL"] == 2);
  // The thresholds file: review.threshold and review.fields, read back by the config.
  const std::string yaml = file_bytes(dir / "t.yaml");
  CHECK(yaml.find("review:\n  threshold: 0.5\n  fields:\n") != std::string::npos);
  CHECK(yaml.find("\n    TOTAL: 0.68\n") != std::string::npos);
  const auto shown = run_docsift("config --config " + q(dir / "t.yaml"));
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("TOTAL: 0.68") != std::string::npos);
  // eval under that config: TOTAL's threshold is 0.68, 6 under it, both wrong values among them.
  const auto again =
      run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) + " --config " +
                  q(dir / "t.yaml") + " --report " + q(dir / "again.json"));
  REQUIRE(again.exit_code == 0);
  const auto at = nlohmann::json::parse(
      file_bytes(dir / "again.json"))["confidence"]["fields"]["TOTAL"]["at_threshold"];
  CHECK(at["threshold"] == 0.68);
  CHECK(at["under"] == 6);
  CHECK(at["wrong_under"] == 2);
  // The Markdown report links the two PNG files drawn beside it.
  const std::string md = file_bytes(dir / "e.md");
  CHECK(md.find("![Reliability diagram](e.reliability.png)") != std::string::npos);
  CHECK(md.find("![Risk-coverage curves](e.risk-coverage.png)") != std::string::npos);
  CHECK(md.find("#### TOTAL (AURC") != std::string::npos);
  for (const char* png : {"e.reliability.png", "e.risk-coverage.png"}) {
    const std::string bytes = file_bytes(dir / png);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  }
}

TEST_CASE(
    "eval: confidence.csv beside predictions.csv, or --confidence, gives the journal's figures") {
  TempDir dir;
  const HandMade made = hand_made();
  write_text(dir / "results.jsonl", made.journal);
  fs::create_directories(dir / "run");
  write_text(dir / "run" / "predictions.csv", made.predictions_csv);
  write_text(dir / "run" / "confidence.csv", made.confidence_csv);
  write_text(dir / "other.csv", made.predictions_csv);
  const auto from_journal = run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) +
                                        " --report " + q(dir / "j.json"));
  const auto beside = run_docsift("eval " + q(dir / "run" / "predictions.csv") + " " + q(kTruth) +
                                  " --report " + q(dir / "b.json"));
  const auto given =
      run_docsift("eval " + q(dir / "other.csv") + " " + q(kTruth) + " --confidence " +
                  q(dir / "run" / "confidence.csv") + " --report " + q(dir / "g.json"));
  REQUIRE(from_journal.exit_code == 0);
  REQUIRE(beside.exit_code == 0);
  REQUIRE(given.exit_code == 0);
  const auto j = nlohmann::json::parse(file_bytes(dir / "j.json"))["confidence"];
  CHECK(j["values"].get<int>() > 200);
  CHECK(nlohmann::json::parse(file_bytes(dir / "b.json"))["confidence"] == j);
  CHECK(nlohmann::json::parse(file_bytes(dir / "g.json"))["confidence"] == j);
  // A CSV not named predictions.csv has no confidences unless given: no section, and a target
  // is refused (exit 2) with no report left behind.
  const auto none = run_docsift("eval " + q(dir / "other.csv") + " " + q(kTruth) + " --report " +
                                q(dir / "n.json"));
  REQUIRE(none.exit_code == 0);
  CHECK(none.out.find("confidence:") == std::string::npos);
  CHECK_FALSE(nlohmann::json::parse(file_bytes(dir / "n.json")).contains("confidence"));
  const auto refused = run_docsift("eval " + q(dir / "other.csv") + " " + q(kTruth) +
                                   " --target-accuracy 0.99 --report " + q(dir / "n.json"));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--target-accuracy") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "n.json"));
  // --write-thresholds without a target, and a bad --threshold, are usage errors.
  CHECK(run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) + " --write-thresholds " +
                    q(dir / "t.yaml"))
            .exit_code == 2);
  CHECK(run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) + " --threshold TOTAL=2")
            .exit_code == 2);
  CHECK(run_docsift("eval " + q(dir / "results.jsonl") + " " + q(kTruth) + " --threshold TOTL=0.5")
            .exit_code == 2);
  // A confidence that is no probability is a malformed input (7).
  fs::create_directories(dir / "bad");
  write_text(dir / "bad" / "predictions.csv", made.predictions_csv);
  std::string bad = made.confidence_csv;
  bad.replace(bad.find(",0.95,"), 6, ",9.5,");
  write_text(dir / "bad" / "confidence.csv", bad);
  CHECK(run_docsift("eval " + q(dir / "bad" / "predictions.csv") + " " + q(kTruth)).exit_code == 7);
}

// What --write-thresholds promises: the thresholds eval fits, given to a run over the same pages,
// make the review queue eval predicted, field by field (the journal's "review" lists and
// summary.json).
TEST_CASE(
    "eval --target-accuracy --write-thresholds, then run --config: the review queue eval "
    "predicted") {
  TempDir dir;
  const auto first = run_docsift("run " + q(kSamples) + " --out " + q(dir / "r") + " --quiet");
  REQUIRE(first.exit_code == 0);
  // Fitted on the journal, and on predictions.csv with confidence.csv's four-decimal confidences.
  for (const char* pred : {"results.jsonl", "predictions.csv"}) {
    CAPTURE(pred);
    const auto fit = run_docsift("eval " + q(dir / "r" / pred) + " " + q(kTruth) +
                                 " --target-accuracy 0.99 --write-thresholds " + q(dir / "t.yaml") +
                                 " --report " + q(dir / "e.json"));
    REQUIRE(fit.exit_code == 0);
    const auto predicted =
        nlohmann::json::parse(file_bytes(dir / "e.json"))["confidence"]["review"];
    fs::remove_all(dir / "r2");
    const auto second = run_docsift("run " + q(kSamples) + " --config " + q(dir / "t.yaml") +
                                    " --out " + q(dir / "r2") + " --quiet");
    REQUIRE(second.exit_code == 0);
    auto counts = review_counts(dir / "r2" / "results.jsonl");
    int total = 0;
    for (const auto& [field, n] : counts) total += n;
    CHECK(total == predicted["total"].get<int>());
    CHECK(total > 0);  // the thresholds must review something, or the test shows nothing
    for (const auto& [field, n] : predicted["fields"].items()) {
      CAPTURE(field);
      CHECK(counts[field] == n.get<int>());
    }
    for (const auto& [field, n] : counts) {
      CAPTURE(field);
      CHECK(predicted["fields"].value(field, 0) == n);
    }
    const auto summary = nlohmann::json::parse(file_bytes(dir / "r2" / "summary.json"));
    CHECK(summary["review"]["fields_to_review"] == predicted["total"]);
  }
}
