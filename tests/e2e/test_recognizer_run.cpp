// `docsift run --engine ocr` with ocr.recognizer: both (docs/ocr.md, "A second recognizer"): the
// real PP-OCRv4 recognizer that scripts/setup.sh converted cross-reads TOTAL, INVOICE_DATE and
// SUPPLIER, and the record says what it read; without the model the run says so once and reads
// with Tesseract alone; a named model folder that is missing or damaged stops the run with exit 3
// and a line naming the file.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/recognize/line_reader.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/skip.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::journal_lines;
using docsift::testing::latest_records;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

// Three sample pages in their own folder: enough for every cross-read field, quick to read.
fs::path three_samples(const TempDir& tmp) {
  const fs::path in = tmp / "in";
  fs::create_directories(in);
  for (const char* name :
       {"synthetic_invoice_001.png", "synthetic_invoice_004.png", "synthetic_invoice_007.png"}) {
    fs::copy_file(kSource / "samples" / name, in / name);
  }
  return in;
}

std::string ocr_run(const fs::path& in, const fs::path& out, const std::string& extra) {
  return "run " + shell_quote(in.string()) + " --out " + shell_quote(out.string()) +
         " --engine ocr --quiet --set ocr.recognizer=both " + extra;
}

}  // namespace

TEST_CASE(
    "recognizer run: both readers on the samples agree, and each record says what the second "
    "read") {
  if (docsift::recognize::LineReader::installed_folder().empty()) {
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  }
  TempDir tmp;
  const fs::path in = three_samples(tmp);
  const auto both = run_docsift(ocr_run(in, tmp / "both", "--set ocr.write_evidence=true"));
  REQUIRE_MESSAGE(both.exit_code == 0, both.err);
  CHECK(both.err.find("second recognizer") == std::string::npos);
  const auto alone = run_docsift("run " + shell_quote(in.string()) + " --out " +
                                 shell_quote((tmp / "alone").string()) +
                                 " --engine ocr --quiet --set ocr.recognizer=tesseract");
  REQUIRE_MESSAGE(alone.exit_code == 0, alone.err);
  // Each page's latest record: pages whose sellers agree have a second (batch/agreement.h).
  const auto records = latest_records(tmp / "both");
  const auto plain = latest_records(tmp / "alone");
  REQUIRE(records.size() == 3);
  REQUIRE(plain.size() == 3);
  for (const auto& [file, r] : records) {
    CAPTURE(file);
    CHECK(r["engine"]["readers"] == nlohmann::json({"tesseract", "ppocr-v4"}));
    const auto& read = r["engine"]["cross_read"];
    const auto& evidence = r["engine"]["evidence"];
    for (const char* field : {"TOTAL", "INVOICE_DATE", "SUPPLIER"}) {
      CAPTURE(field);
      REQUIRE(read.contains(field));
      // Clean synthetic print: both readers read the same value, and nothing is replaced.
      CHECK(read[field]["agreed"] == true);
      CHECK_FALSE(read[field].contains("replaced"));
      CHECK(read[field]["score"].get<double>() > 0.9);
      CHECK(evidence[field]["reader_agreed"] == 1.0);
    }
    // Each row's description read again (Engine::cross_read_rows): every row, each agreeing.
    REQUIRE(read.contains("DESCRIPTIONS"));
    CHECK(read["DESCRIPTIONS"]["rows"] == r["line_items"].size());
    CHECK(read["DESCRIPTIONS"]["agreed"] == read["DESCRIPTIONS"]["rows"]);
    CHECK(read["DESCRIPTIONS"]["taken"] == 0);
    CHECK(evidence["DESCRIPTIONS"]["reader_agreed"] == 1.0);
    // ... and each row's price whose word was found, where the rows' sum does not check them:
    // each agreeing.
    const auto& table = r["engine"]["checks"]["table"];
    const bool by_products = table.contains("products") && table["products"]["off"] == 0;
    const bool by_sum = table.contains("made_of") &&
                        table["made_of"].dump().find("PRICES") != std::string::npos &&
                        (table["difference"] == "0.00" || table["difference"] == "0.01" ||
                         table["difference"] == "-0.01");
    const bool product_off = table.contains("products") && table["products"]["off"] != 0;
    const bool checked = !product_off && (by_products || by_sum);
    CHECK(read.contains("PRICES") != checked);
    if (!checked) {
      REQUIRE(read.contains("PRICES"));
      CHECK(read["PRICES"]["rows"].get<int>() >= 1);
      CHECK(read["PRICES"]["agreed"] == read["PRICES"]["rows"]);
      CHECK(evidence["PRICES"]["reader_agreed"] == 1.0);
    }
    // The fields are Tesseract's where the two agree: the same as reading with Tesseract alone.
    CHECK(r["fields"] == plain.at(file)["fields"]);
    CHECK_FALSE(plain.at(file)["engine"].contains("cross_read"));
  }
  // bfloat16's convolutions (recognize/graph.h): the record names them; these clean pages read
  // the same fields.
  const auto half =
      run_docsift(ocr_run(in, tmp / "bfloat16", "--set ocr.recognizer_precision=bfloat16"));
  if (!docsift::recognize::cpu_runs_bfloat16()) {
    // Refused before a page is read, with one line saying what to set.
    CHECK(half.exit_code == 2);
    CHECK(half.err.find("ocr.recognizer_precision bfloat16") != std::string::npos);
    CHECK(half.err.find("set it to float32") != std::string::npos);
    return;
  }
  REQUIRE_MESSAGE(half.exit_code == 0, half.err);
  const auto halves = latest_records(tmp / "bfloat16");
  REQUIRE(halves.size() == 3);
  for (const auto& [file, r] : halves) {
    CAPTURE(file);
    CHECK(r["engine"]["readers"] == nlohmann::json({"tesseract", "ppocr-v4 bfloat16"}));
    CHECK(r["fields"] == records.at(file)["fields"]);
  }
}

TEST_CASE(
    "recognizer run: with no model where auto looks, the run says so once and reads with Tesseract "
    "alone") {
  TempDir tmp;
  const fs::path in = three_samples(tmp);
  // The binary copied where no .deps/ppocr is beside it (auto looks beside the program).
  const fs::path bin = tmp / "bin" / "docsift";
  fs::create_directories(bin.parent_path());
  fs::copy_file(DOCSIFT_BIN, bin);
  const auto r =
      docsift::testing::run_shell(shell_quote(bin.string()) + " " + ocr_run(in, tmp / "out", ""));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string said = "no second recognizer found";
  const auto first = r.err.find(said);
  REQUIRE(first != std::string::npos);
  CHECK(r.err.find(said, first + 1) == std::string::npos);  // once, not per page
  for (const auto& rec : journal_lines(tmp / "out" / "results.jsonl")) {
    CHECK(rec["status"] == "ok");
    CHECK_FALSE(rec["engine"].contains("cross_read"));
  }
}

TEST_CASE(
    "recognizer run: a named model folder that is missing or damaged stops the run with exit 3, "
    "naming the file") {
  TempDir tmp;
  const fs::path in = three_samples(tmp);
  auto r = run_docsift(ocr_run(
      in, tmp / "out1", "--set ocr.recognizer_model=" + shell_quote((tmp / "nowhere").string())));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("nowhere: no recognizer.json there") != std::string::npos);
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty()) DOCSIFT_SKIP("no converted recognizer in .deps/ppocr to damage");
  const fs::path damaged = tmp / "damaged";
  fs::create_directories(damaged);
  fs::copy_file(fs::path(model) / "recognizer.json", damaged / "recognizer.json");
  {  // the weights cut off after their header
    std::ifstream src(fs::path(model) / "recognizer.safetensors", std::ios::binary);
    std::string head(64 * 1024, '\0');
    src.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(damaged / "recognizer.safetensors", std::ios::binary) << head;
  }
  r = run_docsift(
      ocr_run(in, tmp / "out2", "--set ocr.recognizer_model=" + shell_quote(damaged.string())));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("recognizer.safetensors") != std::string::npos);
  CHECK(r.err.find("\n") == r.err.rfind("\n"));  // one line
}
