// Model confidences in the journal (docs/decoding.md, "Confidence"): `docsift run samples/` with
// the tiny InternVL3 fixture gives every field that has a value a confidence in (0, 1], and none to
// a field that is N/A, under keys and free decoding, in-process and through a worker. The values of
// a random checkpoint mean nothing; their presence and range are what is checked here, their
// agreement with transformers is tests/parity/test_confidence.cpp.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/model_stack.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

// Every non-N/A field of an ok record has a confidence in (0, 1]; N/A fields have none; the
// document type's is DOCUMENT_TYPE's. Returns how many confidences the record holds.
std::size_t check_record(const nlohmann::json& rec) {
  CAPTURE(rec["file"].get<std::string>());
  REQUIRE(rec["status"] == "ok");
  REQUIRE(rec.contains("confidence"));
  const auto& confidence = rec["confidence"];
  for (const auto& [field, value] : rec["fields"].items()) {
    CAPTURE(field);
    const std::string v = value.get<std::string>();
    if (v == "N/A") {
      CHECK_FALSE(confidence.contains(field));
      continue;
    }
    REQUIRE(confidence.contains(field));
    const double c = confidence[field].get<double>();
    CHECK(c > 0.0);
    CHECK(c <= 1.0);
  }
  if (confidence.contains("DOCUMENT_TYPE")) {
    CHECK(rec["document_type_confidence"].get<double>() ==
          confidence["DOCUMENT_TYPE"].get<double>());
  }
  return confidence.size();
}

}  // namespace

TEST_CASE(
    "run on samples/ with the fixture model: every field with a value has a model confidence above "
    "0 and at most 1") {
  DOCSIFT_NEEDS_MODEL_STACK();
  const std::string samples = shell_quote((kSource / "samples").string());
  const std::string fast = docsift::testing::fast_run_options({.fields_file = true});
  TempDir out;
  const auto r =
      run_docsift("run " + samples + fast + " --out " + shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 20);
  std::size_t confidences = 0, values = 0;
  for (const auto& rec : records) {
    confidences += check_record(rec);
    for (const auto& [field, value] : rec["fields"].items())
      values += value.get<std::string>() != "N/A";
    // keys decoding routes by the type, so it always has one.
    CHECK(rec.contains("document_type_confidence"));
  }
  CHECK(confidences == values);
  MESSAGE(values << " values over 20 pages, each with a confidence");

  // The aggregate is a key: the product of a value's probabilities is never above its least one.
  TempDir product;
  const std::string page = shell_quote((kSource / "samples/synthetic_invoice_001.png").string());
  const auto p = run_docsift("run " + page + fast + " --set extraction.confidence=product --out " +
                             shell_quote(product.path().string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  const auto by_product = journal_lines(product.path() / "results.jsonl").at(0);
  check_record(by_product);
  for (const auto& rec : records) {
    if (rec["file"] != by_product["file"]) continue;
    for (const auto& [field, c] : by_product["confidence"].items())
      CHECK(c.get<double>() <= rec["confidence"][field].get<double>());
  }

  // free decoding, and through a worker (the record travels as JSON).
  TempDir free;
  const auto f =
      run_docsift("run " + page + fast + " --set extraction.decoding=free --isolate worker --out " +
                  shell_quote(free.path().string()));
  REQUIRE_MESSAGE(f.exit_code == 0, f.err);
  check_record(journal_lines(free.path() / "results.jsonl").at(0));
}

TEST_CASE(
    "review.threshold given alone is every field's, the fitted TOTAL, INVOICE_DATE and SUPPLIER "
    "included") {
  TempDir dir;
  fs::create_directories(dir / "inbox");
  // Two invoices of one seller (read alike: pages that agree) and a statement, whose TOTAL,
  // INVOICE_DATE and SUPPLIER their own thresholds accept, with Tesseract alone or the recognizer.
  for (const char* n : {"002", "006", "007"}) {
    const std::string name = "synthetic_invoice_" + std::string(n) + ".png";  // the truth's names
    fs::copy_file(kSource / "samples" / name, dir / "inbox" / name);
  }
  const std::string inbox = shell_quote((dir / "inbox").string());
  REQUIRE(run_docsift("run " + inbox + " --quiet --out " + shell_quote((dir / "shipped").string()))
              .exit_code == 0);
  REQUIRE(run_docsift("run " + inbox + " --quiet --set review.threshold=1 --out " +
                      shell_quote((dir / "one").string()))
              .exit_code == 0);
  REQUIRE(run_docsift("run " + inbox + " --quiet --set review.threshold=0 --out " +
                      shell_quote((dir / "zero").string()))
              .exit_code == 0);
  // The rows of review.csv for `field` (its second column).
  const auto queued = [](const fs::path& csv, const std::string& field) {
    const std::string text = docsift::testing::file_bytes(csv);
    int n = 0;
    for (std::size_t at = text.find("," + field + ","); at != std::string::npos;
         at = text.find("," + field + ",", at + 1))
      ++n;
    return n;
  };
  for (const char* field : {"TOTAL", "INVOICE_DATE", "SUPPLIER"}) {
    CAPTURE(field);
    // The control: their own thresholds (config.h: ReviewConfig) accept them on these pages...
    CHECK(queued(dir / "shipped" / "review.csv", field) == 0);
    // ...and a threshold of 1 given alone queues them too (their confidences are under 1).
    CHECK(queued(dir / "one" / "review.csv", field) > 0);
  }
  const std::string text = docsift::testing::file_bytes(dir / "zero" / "review.csv");
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);  // the header alone: every value accepted
  const auto eval = run_docsift(
      "eval " + shell_quote((dir / "shipped" / "results.jsonl").string()) + " " +
      shell_quote((kSource / "samples" / "ground_truth.csv").string()) + " --threshold 1");
  CHECK_MESSAGE(eval.exit_code == 0, eval.err);
  // eval's --threshold 1 is the same review.threshold: TOTAL's row queues its values too.
  const std::size_t total_row = eval.out.rfind("\nTOTAL ");
  REQUIRE(total_row != std::string::npos);
  const std::string row =
      eval.out.substr(total_row + 1, eval.out.find('\n', total_row + 1) - total_row - 1);
  CHECK_MESSAGE(row.find("1.0000") != std::string::npos, row);
}
