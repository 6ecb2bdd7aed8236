// `docsift review sellers` (docs/confidence.md, "Corrections that teach the next run"): a run of
// the OCR engine on three pages of samples/ with most values queued; the list of the sellers it
// accepted, then with --checked, then after a person's correction of a seller; the list read by a
// second run, whose sellers are then known; and the outputs the command refuses to write.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::latest_records;
using docsift::testing::list_lines;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::TempDir;
using docsift::testing::write_text;
using nlohmann::json;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const char* const kPages[] = {"synthetic_invoice_005.png", "synthetic_invoice_010.png",
                              "synthetic_invoice_013.png"};
bool queued(const json& record, const std::string& field) {
  for (const json& f : record.value("review", json::array()))
    if (f == field) return true;
  return false;
}

// The lines the journal's records give: a seller accepted (or, `checked`, any seller read), with
// its address after a tab when that is accepted too.
std::set<std::string> expected(const fs::path& out, bool checked) {
  std::set<std::string> lines;
  for (const auto& [file, r] : latest_records(out)) {
    const std::string seller = r["fields"].value("SUPPLIER", "N/A");
    const std::string address = r["fields"].value("BUSINESS_ADDRESS", "N/A");
    const auto taken = [&](const std::string& field) {
      return checked || !queued(r, field) ||
             (r.contains("corrections") && r["corrections"].contains(field));
    };
    if (seller == "N/A" || !taken("SUPPLIER")) continue;
    lines.insert(address != "N/A" && taken("BUSINESS_ADDRESS") ? seller + "\t" + address : seller);
  }
  return lines;
}

}  // namespace

TEST_CASE(
    "review sellers: the sellers a run accepted or a person corrected become the next run's known "
    "sellers") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", out = dir / "out";
  fs::create_directories(inbox);
  for (const char* page : kPages) fs::copy_file(kSource / "samples" / page, inbox / page);
  // Most values queued, so that the list leaves some sellers out whatever the shipped thresholds.
  CliResult r =
      run_docsift("run " + q(inbox) + " --quiet --out " + q(out) + " --set review.threshold=0.99");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string journal_before = file_bytes(out / "results.jsonl");

  // Accepted only, then every seller read.
  r = run_docsift("review sellers " + q(out) + " --out " + q(dir / "accepted.tsv"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(list_lines(dir / "accepted.tsv") == expected(out, false));
  r = run_docsift("review sellers " + q(out) + " --checked --out " + q(dir / "checked.tsv"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::set<std::string> checked = list_lines(dir / "checked.tsv");
  CHECK(checked == expected(out, true));
  CHECK(checked.size() == 3);
  CHECK(r.out.find("from 3 of 3 pages of 1 run") != std::string::npos);
  CHECK(file_bytes(out / "results.jsonl") == journal_before);

  // A person corrects the first page's seller: the list gives the correction, not what was read.
  const json first = latest_records(out).at(kPages[0]);
  const std::string read = first["fields"]["SUPPLIER"];
  write_text(dir / "fix.csv", std::string("image_file,field,value,corrected\n") + kPages[0] +
                                  ",SUPPLIER,\"" + read + "\",Harbour Lane Traders Pty Ltd\n");
  REQUIRE_MESSAGE(queued(first, "SUPPLIER"), "a seller accepted at 0.99 has no row to correct");
  r = run_docsift("review apply " + q(out) + " --file " + q(dir / "fix.csv"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  r = run_docsift("review sellers " + q(out) + " --out " + q(dir / "corrected.tsv"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::set<std::string> corrected = list_lines(dir / "corrected.tsv");
  CHECK(corrected == expected(out, false));
  bool has_fix = false;
  for (const std::string& line : corrected) {
    has_fix = has_fix || line.rfind("Harbour Lane Traders Pty Ltd", 0) == 0;
    CHECK(line.rfind(read, 0) != 0);
  }
  CHECK(has_fix);

  // The --checked list read by a second run: every page's seller is a listed one.
  r = run_docsift(
      "run " + q(inbox) + " --quiet --out " + q(dir / "second") +
      " --set ocr.write_evidence=true --set ocr.known_sellers=" + q(dir / "checked.tsv"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const auto& [file, record] : latest_records(dir / "second")) {
    CAPTURE(file);
    CHECK(record["engine"]["evidence"]["SUPPLIER"]["known"] == 1.0);
  }
}

TEST_CASE("review sellers refuses to write over a journal it reads or a run's own file") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", out = dir / "out";
  fs::create_directories(inbox);
  fs::copy_file(kSource / "samples" / kPages[0], inbox / kPages[0]);
  CliResult r = run_docsift("run " + q(inbox) + " --quiet --out " + q(out));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string journal = file_bytes(out / "results.jsonl");
  const std::string summary = file_bytes(out / "summary.json");
  for (const fs::path& target : {out / "results.jsonl", out / "summary.json"}) {
    CAPTURE(target);
    r = run_docsift("review sellers " + q(out) + " --out " + q(target));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("nothing was written") != std::string::npos);
  }
  // A folder at --out: a usage error before any journal is read, not a failed write after.
  r = run_docsift("review sellers " + q(out) + " --out " + q(inbox));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is a folder") != std::string::npos);
  CHECK(file_bytes(out / "results.jsonl") == journal);
  CHECK(file_bytes(out / "summary.json") == summary);
  r = run_docsift("review sellers " + q(dir / "nothere") + " --out " + q(dir / "list.tsv"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("nothere") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "list.tsv"));
}
