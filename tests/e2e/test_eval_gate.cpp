// `docsift eval` as a CI gate, tried as a hostile tester would: a predictions file that
// covers part of the truth, a run's CSV against its journal, an empty file under --gate f1,
// misspelt columns, a stale JUnit file, money to the cent and with its sign, and the exit code of
// each kind of bad input. Each case here passed the gate, or gave another code, before.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "docsift/io/csv.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/skip.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kTruth = kSource / "samples" / "ground_truth.csv";

// The samples' truth as lines: the header, then 20 rows (no field holds a line break).
std::vector<std::string> truth_lines() {
  std::istringstream in(file_bytes(kTruth));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

int failures_in(const fs::path& junit) {
  const std::string xml = file_bytes(junit);
  return std::stoi(xml.substr(xml.find("failures=\"") + 10));
}

// One line, "docsift: error: ..." (after the line's timestamp, when the log has one).
bool one_line_error(const CliResult& r) {
  return r.err.find("docsift: error: ") != std::string::npos &&
         r.err.find('\n') == r.err.size() - 1;
}

}  // namespace

TEST_CASE("eval: predictions named with a folder the truth's names lack get one line saying so") {
  TempDir dir;
  // Sample 001's row under the name --files-from records ("samples/synthetic_invoice_001.png").
  write_text(dir / "pred.csv",
             docsift::testing::samples_truth(
                 {{"synthetic_invoice_001.png", "samples/synthetic_invoice_001.png"}}));
  const CliResult r = run_docsift("eval " + shell_quote((dir / "pred.csv").string()) + " " +
                                  shell_quote(kTruth.string()));
  CHECK_MESSAGE(r.err.find("1 predicted image match the ground truth's by file name only "
                           "('samples/synthetic_invoice_001.png' and 'synthetic_invoice_001.png'): "
                           "name them alike in both") != std::string::npos,
                r.err);
  // Names that agree give no such line.
  write_text(dir / "same.csv", docsift::testing::samples_truth(
                                   {{"synthetic_invoice_001.png", "synthetic_invoice_001.png"}}));
  const CliResult same = run_docsift("eval " + shell_quote((dir / "same.csv").string()) + " " +
                                     shell_quote(kTruth.string()));
  CHECK(same.err.find("by file name only") == std::string::npos);
}

TEST_CASE(
    "eval: one row of twenty, gated per field, fails: the field is scored over every page of the "
    "truth") {
  TempDir dir;
  const auto lines = truth_lines();
  REQUIRE(lines.size() == 21);
  write_text(dir / "one.csv",
             lines[0] + "\n" + lines[1] + "\n");  // the truth's own first row: right
  const auto r = run_docsift("eval " + q(dir / "one.csv") + " " + q(kTruth) +
                             " --min-field TOTAL=0.99 --junit " + q(dir / "j.xml"));
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("gate: TOTAL accuracy") != std::string::npos);
  CHECK(r.err.find("gate: 19 of the truth's 20 pages have no prediction") != std::string::npos);
  CHECK(failures_in(dir / "j.xml") == 2);  // overall (coverage) and TOTAL
  CHECK(file_bytes(dir / "j.xml").find("<property name=\"coverage\" value=\"0.0500\"/>") !=
        std::string::npos);
  // Coverage waived, the field still fails: it no longer scores 1.000 on the one row there is.
  const auto waived =
      run_docsift("eval " + q(dir / "one.csv") + " " + q(kTruth) +
                  " --min-field TOTAL=0.99 --min-coverage 0 --report " + q(dir / "r.json"));
  CHECK(waived.exit_code == 4);
  CHECK(waived.err.find("have no prediction") == std::string::npos);
  const auto report = nlohmann::json::parse(file_bytes(dir / "r.json"));
  CHECK(report["fields"]["TOTAL"].get<double>() < 0.1);
  CHECK(report["field_stats"]["TOTAL"]["fn"].get<double>() > 10);
  CHECK(report["coverage"] == 0.05);
  // No gate at all: a report, exit 0, but the table says what is missing.
  const auto plain = run_docsift("eval " + q(dir / "one.csv") + " " + q(kTruth));
  CHECK(plain.exit_code == 0);
  CHECK(plain.out.find("19 without a prediction") != std::string::npos);
}

TEST_CASE(
    "eval: a run's predictions.csv and results.jsonl with failed pages give the same scores and "
    "verdict") {
  TempDir dir;
  fs::create_directories(dir / "in");
  for (const auto& entry : fs::directory_iterator(kSource / "samples")) {
    if (entry.path().extension() == ".png")
      fs::copy_file(entry.path(), dir / "in" / entry.path().filename());
  }
  // Five pages that no decoder reads: the run fails them, the CSV has no row for them.
  for (const char* name :
       {"synthetic_invoice_002.png", "synthetic_invoice_006.png", "synthetic_invoice_010.png",
        "synthetic_invoice_014.png", "synthetic_invoice_018.png"}) {
    REQUIRE(fs::exists(dir / "in" / name));
    write_text(dir / "in" / name, "\x89PNG\r\n\x1a\nnot a png at all");
  }
  const auto run =
      run_docsift("run " + q(dir / "in") + " --engine ocr --quiet --out " + q(dir / "out"));
  REQUIRE_MESSAGE(run.exit_code == 1, run.err);
  const std::string gate = " --min-field TOTAL=0.95 --min-coverage 0";
  const auto csv =
      run_docsift("eval " + q(dir / "out/predictions.csv") + " " + q(kTruth) + gate + " --report " +
                  q(dir / "csv.json") + " --junit " + q(dir / "csv.xml"));
  const auto journal =
      run_docsift("eval " + q(dir / "out/results.jsonl") + " " + q(kTruth) + gate + " --report " +
                  q(dir / "journal.json") + " --junit " + q(dir / "journal.xml"));
  CHECK(csv.exit_code == 4);
  CHECK(journal.exit_code == 4);
  // The scores and the verdict alike. The confidence table's AURC may differ in its last digit:
  // confidence.csv rounds to four decimals, so two values the journal orders can tie in the CSV.
  const auto scores = [](const std::string& out) {
    return out.substr(0, out.find("\nconfidence:"));
  };
  const auto queue = [](const std::string& out) {
    return out.substr(out.rfind("review queue at these thresholds"));
  };
  CHECK(scores(csv.out) == scores(journal.out));
  CHECK(queue(csv.out) == queue(journal.out));
  CHECK(file_bytes(dir / "csv.xml") == file_bytes(dir / "journal.xml"));
  const auto a = nlohmann::json::parse(file_bytes(dir / "csv.json"));
  const auto b = nlohmann::json::parse(file_bytes(dir / "journal.json"));
  for (const char* key : {"overall", "fields", "field_stats", "document_types", "overall_counts",
                          "images", "missing_predictions", "coverage"}) {
    CAPTURE(key);
    CHECK(a[key] == b[key]);
  }
  CHECK(a["missing_predictions"].size() == 5);
  CHECK(journal.err.find("synthetic_invoice_002.png: failed in the run") != std::string::npos);
  // Under the default coverage of a gated eval, both fail on the five pages too.
  CHECK(run_docsift("eval " + q(dir / "out/predictions.csv") + " " + q(kTruth) +
                    " --min-accuracy 0.5")
            .exit_code == 4);
  CHECK(
      run_docsift("eval " + q(dir / "out/results.jsonl") + " " + q(kTruth) + " --min-accuracy 0.5")
          .exit_code == 4);
}

TEST_CASE(
    "eval: a header-only predictions CSV fails --gate f1 and never shows a perfect precision, "
    "recall or F1") {
  TempDir dir;
  write_text(dir / "empty.csv", truth_lines()[0] + "\n");
  const auto r = run_docsift("eval " + q(dir / "empty.csv") + " " + q(kTruth) +
                             " --gate f1 --min-field TOTAL=0.9 --junit " + q(dir / "j.xml"));
  CHECK(r.exit_code == 4);
  CHECK(r.out.find("1.000") == std::string::npos);
  CHECK(r.out.find("precision 0.000, recall 0.000, F1 0.000") != std::string::npos);
  CHECK(r.err.find("gate: 20 of the truth's 20 pages have no prediction") != std::string::npos);
  CHECK(file_bytes(dir / "j.xml").find("value=\"1.0000\"") == std::string::npos);
  // With no gate, an eval of nothing still fails: there is nothing to pass.
  const auto ungated = run_docsift("eval " + q(dir / "empty.csv") + " " + q(kTruth));
  CHECK(ungated.exit_code == 4);
  CHECK(run_docsift("eval " + q(dir / "empty.csv") + " " + q(kTruth) + " --min-coverage 0")
            .exit_code == 0);
}

TEST_CASE(
    "eval: a misspelt or lower-case prediction column is an error naming it, "
    "--allow-missing-fields scores the rest") {
  TempDir dir;
  const auto lines = truth_lines();
  const auto with_header = [&](const std::string& header) {
    auto copy = lines;
    copy[0] = header;
    return joined(copy);
  };
  std::string header = lines[0];
  write_text(dir / "totl.csv",
             with_header(std::string(header).replace(header.find(",TOTAL,"), 7, ",TOTL,")));
  auto r = run_docsift("eval " + q(dir / "totl.csv") + " " + q(kTruth));
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r));
  CHECK(r.err.find("TOTL (did you mean TOTAL?)") != std::string::npos);
  CHECK(r.out.empty());
  // Still an error with --allow-missing-fields: a misspelt column is never what was meant.
  CHECK(run_docsift("eval " + q(dir / "totl.csv") + " " + q(kTruth) + " --allow-missing-fields")
            .exit_code == 2);

  std::string lower = header;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  write_text(dir / "lower.csv", with_header(lower));
  r = run_docsift("eval " + q(dir / "lower.csv") + " " + q(kTruth));
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r));
  CHECK(r.err.find("total (did you mean TOTAL?)") != std::string::npos);
  CHECK(r.err.find("document_type (did you mean DOCUMENT_TYPE?)") != std::string::npos);

  // Without the TOTAL column: an error, or, with --allow-missing-fields, the other 24 fields.
  const auto table = docsift::io::read_csv(kTruth);
  const auto total = static_cast<std::size_t>(
      std::find(table.header.begin(), table.header.end(), "TOTAL") - table.header.begin());
  REQUIRE(total < table.header.size());
  std::string no_total;
  for (std::size_t r = 0; r <= table.rows.size(); ++r) {
    const auto& row = r == 0 ? table.header : table.rows[r - 1];
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c != total) line.append(line.empty() ? "" : ",").append(docsift::io::csv_field(row[c]));
    }
    no_total += line + "\n";
  }
  write_text(dir / "no_total.csv", no_total);
  r = run_docsift("eval " + q(dir / "no_total.csv") + " " + q(kTruth));
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r));
  CHECK(r.err.find("has no column for TOTAL") != std::string::npos);
  CHECK(r.err.find("--allow-missing-fields") != std::string::npos);
  r = run_docsift("eval " + q(dir / "no_total.csv") + " " + q(kTruth) +
                  " --allow-missing-fields --min-accuracy 1 --report " + q(dir / "r.json"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("overall 1.000") != std::string::npos);
  CHECK(r.out.find("\nTOTAL ") == std::string::npos);
  CHECK(r.err.find("has no column for TOTAL (not scored: --allow-missing-fields)") !=
        std::string::npos);
  const auto report = nlohmann::json::parse(file_bytes(dir / "r.json"));
  CHECK(report["fields_not_predicted"] == nlohmann::json::array({"TOTAL"}));
  CHECK(report["fields"].size() == 24);
  // A gate on the field left out is a usage error: it is not scored.
  r = run_docsift("eval " + q(dir / "no_total.csv") + " " + q(kTruth) +
                  " --allow-missing-fields --min-field TOTAL=0.5");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("TOTAL: not a scored field") != std::string::npos);
}

TEST_CASE(
    "eval: a failing eval (exit 2, 3 or 7) leaves no report or JUnit file of an earlier run") {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const fs::path junit = dir / "j.xml", json = dir / "r.json", md = dir / "r.md";
  const std::string outputs =
      " --junit " + q(junit) + " --report " + q(json) + " --report " + q(md);
  const auto passing = [&] {
    const auto r =
        run_docsift("eval " + q(kTruth) + " " + q(kTruth) + " --min-accuracy 0.9" + outputs);
    REQUIRE(r.exit_code == 0);
    REQUIRE(failures_in(junit) == 0);
    REQUIRE(fs::exists(json));
    REQUIRE(fs::exists(md));
  };
  const auto none_left = [&](const CliResult& r, int code) {
    CHECK(r.exit_code == code);
    CHECK_FALSE(fs::exists(junit));
    CHECK_FALSE(fs::exists(json));
    CHECK_FALSE(fs::exists(md));
  };
  write_text(dir / "unterminated.csv", "image_file,TOTAL\n\"a.png,$1.00\n");

  passing();
  none_left(run_docsift("eval " + q(dir / "absent.csv") + " " + q(kTruth) + " --min-accuracy 0.9" +
                        outputs),
            2);
  passing();
  none_left(run_docsift("eval " + q(dir / "unterminated.csv") + " " + q(kTruth) +
                        " --min-accuracy 0.9" + outputs),
            7);
  passing();
  // Refused by the command line's own checks, before eval reads anything.
  none_left(run_docsift("eval " + q(kTruth) + " " + q(kTruth) + " --rules nonsense" + outputs), 2);
  passing();
  none_left(run_docsift("eval " + q(kTruth) + " " + q(kTruth) + " --min-field TOTAL" + outputs), 2);
  // A report name eval refuses is never touched.
  write_text(dir / "notes.txt", "mine");
  CHECK(run_docsift("eval " + q(kTruth) + " " + q(kTruth) + " --report " + q(dir / "notes.txt"))
            .exit_code == 2);
  CHECK(file_bytes(dir / "notes.txt") == "mine");
  // Exit 4 writes its files, with the failures.
  const auto lines = truth_lines();
  write_text(dir / "one.csv", lines[0] + "\n" + lines[1] + "\n");
  const auto below =
      run_docsift("eval " + q(dir / "one.csv") + " " + q(kTruth) + " --min-accuracy 0.9" + outputs);
  CHECK(below.exit_code == 4);
  CHECK(failures_in(junit) == 1);
  CHECK(fs::exists(json));
}

TEST_CASE(
    "eval: money to the cent and with its sign under the docsift rules, reference-2025 keeps 1 %") {
  TempDir dir;
  write_text(dir / "gt.csv",
             "image_file,DOCUMENT_TYPE,TOTAL\na.png,TAX INVOICE,\"$2,480.62\"\nb.png,TAX "
             "INVOICE,\"$1,373.03\"\n");
  const auto total = [&](const std::string& a, const std::string& b, const std::string& options) {
    write_text(dir / "pred.csv", "image_file,DOCUMENT_TYPE,TOTAL\na.png,TAX INVOICE,\"" + a +
                                     "\"\nb.png,TAX INVOICE,\"" + b + "\"\n");
    const auto r = run_docsift("eval " + q(dir / "pred.csv") + " " + q(dir / "gt.csv") +
                               " --report " + q(dir / "r.json") + options);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(file_bytes(dir / "r.json"))["images"];
  };
  const auto score = [](const nlohmann::json& images, int i) {
    return images[i]["fields"]["TOTAL"].get<double>();
  };
  auto images = total("$2,500.00", "($1,373.03)", "");
  CHECK(score(images, 0) == 0.0);  // within 1 %, not to the cent
  CHECK(score(images, 1) == 0.0);  // a negative amount
  for (const char* negative : {"-1,373.03", "1,373.03-", "-$1,373.03", "(1373.03)"}) {
    CAPTURE(negative);
    CHECK(score(total("$2,480.62", negative, ""), 1) == 0.0);
  }
  images = total("2480.62", "$1,373.03", "");
  CHECK(score(images, 0) == 1.0);
  CHECK(score(images, 1) == 1.0);
  // eval.money_tolerance gives the 1 % back under the docsift rules; reference-2025 always has it.
  CHECK(score(total("$2,500.00", "$1,373.03", " --set eval.money_tolerance=0.01"), 0) == 1.0);
  CHECK(score(total("$2,500.00", "$1,373.03", " --rules reference-2025"), 0) == 1.0);
  CHECK(score(total("$2,530.00", "$1,373.03", " --rules reference-2025"), 0) == 0.0);
}

TEST_CASE("eval's exit codes: an input not there 2, unreadable 3, malformed 7") {
  TempDir dir;
  // Traversable by nobody, so that the unreadable case is met as another user meets it (root reads
  // any file).
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const std::string truth = " " + q(kTruth);
  const auto code = [&](const std::string& args, const std::string& env = "") {
    const auto r = run_docsift("eval " + args, env);
    CAPTURE(args);
    CAPTURE(r.err);
    CHECK(one_line_error(r));
    CHECK(r.out.empty());
    return r.exit_code;
  };
  CHECK(code(q(dir / "absent.csv") + truth) == 2);
  CHECK(code(q(kTruth) + " " + q(dir / "absent.csv")) == 2);
  CHECK(code(q(kTruth) + truth + " --baseline " + q(dir / "absent.json")) == 2);

  write_text(dir / "unterminated.csv", "image_file,TOTAL\n\"a.png,$1.00\n");
  CHECK(code(q(dir / "unterminated.csv") + truth) == 7);
  write_text(dir / "no_image.csv", "file,TOTAL\na.png,$1.00\n");
  CHECK(code(q(dir / "no_image.csv") + truth) == 7);
  write_text(dir / "twice.csv", "image_file,TOTAL\na.png,$1.00\na.png,$2.00\n");
  CHECK(code(q(dir / "twice.csv") + truth) == 7);
  write_text(dir / "bad.jsonl",
             "{\"file\": \"a.png\", \"status\": \"ok\"}\nnot json\n{\"file\": \"b.png\"}\n");
  CHECK(code(q(dir / "bad.jsonl") + truth) == 7);
  write_text(dir / "shape.jsonl", "{\"status\": \"ok\"}\n");  // no "file"
  CHECK(code(q(dir / "shape.jsonl") + truth) == 7);
  CHECK(code(q(kTruth) + " " + q(dir / "unterminated.csv")) == 7);
  write_text(dir / "not_json.json", "image_file,TOTAL\n");
  CHECK(code(q(kTruth) + truth + " --baseline " + q(dir / "not_json.json")) == 7);
  write_text(dir / "not_report.json", "{\"overall\": \"high\"}");
  CHECK(code(q(kTruth) + truth + " --baseline " + q(dir / "not_report.json")) == 7);

  fs::copy_file(kTruth, dir / "locked.csv");
  fs::permissions(dir / "locked.csv", fs::perms::none);
  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const auto locked = run_docsift("eval " + q(dir / "locked.csv") + truth, as_user);
  if (locked.exit_code != 3 && locked.err.find("ermission denied") == std::string::npos) {
    DOCSIFT_SKIP("cannot run docsift as another user here: " << locked.err.substr(0, 200));
  }
  CHECK(locked.exit_code == 3);
  CHECK(locked.err.find("locked.csv") != std::string::npos);
  CHECK(one_line_error(locked));
}
