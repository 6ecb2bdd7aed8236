// Pages that agree (batch/agreement.h, docs/confidence.md "Pages that agree"), as `docsift run`
// does it with the OCR engine: two copies of one sample page and a third page; the seller the two
// read alike gets the calibration's weight once every page is read, the tables and summary.json
// agree with the journal, --resume writes nothing more, a page read again as another seller takes
// the weight back off, and a run killed with SIGKILL in the count ends, after --resume, as a run
// never killed. Receipts drawn here with one seller misspelt on one page: the run writes the
// spelling the other pages agree on (ocr.batch_spelling), the page's own reading kept; with one
// address's house number another: the run queues it ("pages disagree"), and eval predicts it.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "docsift/io/csv.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/processes.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::latest_records;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::TempDir;
using nlohmann::json;

namespace {

const fs::path kSamples = fs::path(DOCSIFT_SOURCE_DIR) / "samples";

// a.png and b.png one page, c.png another.
struct Inbox {
  TempDir dir;
  fs::path inbox = dir / "inbox";
  Inbox() {
    fs::create_directories(inbox);
    fs::copy_file(kSamples / "synthetic_invoice_005.png", inbox / "a.png");
    fs::copy_file(kSamples / "synthetic_invoice_005.png", inbox / "b.png");
    fs::copy_file(kSamples / "synthetic_invoice_010.png", inbox / "c.png");
  }
  CliResult run(const fs::path& out, const std::string& more = "") const {
    return run_docsift("run " + q(inbox) + " --quiet --out " + q(out) + more);
  }
};

double logit(double p) { return std::log(p / (1 - p)); }

// A receipt drawn as print: the seller's name on the top line, an address, a date and a total.
void draw_receipt(const fs::path& file, const std::string& seller,
                  const std::string& street = "NO 12, JALAN TAMPOI 7/4,") {
  const std::vector<std::string> lines = {seller,
                                          street,
                                          "81200 JOHOR BAHRU, JOHOR",
                                          "TAX INVOICE",
                                          "DATE: 12/03/2018",
                                          "BREAD 1 X 9.50   9.50",
                                          "TOTAL 9.50"};
  cv::Mat page(1100, 850, CV_8UC1, cv::Scalar(255));
  int y = 80;
  for (const std::string& line : lines) {
    cv::putText(page, line, {40, y}, cv::FONT_HERSHEY_DUPLEX, 1.0, cv::Scalar(0), 2, cv::LINE_AA);
    y += 60;
  }
  REQUIRE(cv::imwrite(file.string(), page));
}

const json& seller_agreement(const json& record) { return record.at("agreement").at("SUPPLIER"); }

// The index of the column `name` of a CSV file as io::read_csv reads it.
std::size_t column_of(const docsift::io::CsvTable& table, const std::string& name) {
  const auto it = std::find(table.header.begin(), table.header.end(), name);
  REQUIRE(it != table.header.end());
  return static_cast<std::size_t>(it - table.header.begin());
}

// The tables and summary.json say what the journal's latest records say; returns summary.json.
json check_outputs(const fs::path& out) {
  const auto pages = latest_records(out);
  std::size_t queued = 0, accepted_pages = 0, compared = 0, agreed = 0, respelled = 0;
  for (const auto& [file, record] : pages) {
    queued += record.at("review").size();
    accepted_pages += record.at("review").empty() ? 1 : 0;
    if (!record.contains("agreement") || !record.at("agreement").is_object()) continue;
    for (const auto& [field, a] : record.at("agreement").items()) {
      ++compared;
      agreed += a.at("agreed").get<bool>() ? 1 : 0;
      respelled += a.contains("read_value") ? 1 : 0;
    }
  }
  CHECK(docsift::io::read_csv(out / "predictions.csv").rows.size() == pages.size());
  CHECK(docsift::io::read_csv(out / "review.csv").rows.size() == queued);
  const auto confidence = docsift::io::read_csv(out / "confidence.csv");
  REQUIRE(confidence.rows.size() == pages.size());
  const json summary = json::parse(file_bytes(out / "summary.json"));
  CHECK(summary.at("review").at("pages_accepted").get<std::size_t>() == accepted_pages);
  CHECK(summary.at("review").at("fields_to_review").get<std::size_t>() == queued);
  REQUIRE(compared > 0);
  CHECK(summary.at("agreement").at("values").get<std::size_t>() == compared);
  CHECK(summary.at("agreement").at("agreed").get<std::size_t>() == agreed);
  CHECK(summary.at("agreement").at("respelled").get<std::size_t>() == respelled);
  return summary;
}

}  // namespace

TEST_CASE("run: a seller two pages read alike gets the calibration's weight, and loses it") {
  const Inbox in;
  const fs::path out = in.dir / "out";
  const CliResult r = in.run(out);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto pages = latest_records(out);
  REQUIRE(pages.size() == 3);
  const json a = pages.at("a.png"), b = pages.at("b.png"),
             c = pages.at("c.png");  // copies: pages is read again below
  REQUIRE(a.contains("agreement"));
  CHECK(seller_agreement(a).at("agreed") == true);
  CHECK(seller_agreement(b).at("agreed") == true);
  CHECK(seller_agreement(c).at("agreed") == false);
  CHECK(seller_agreement(a).at("key") == seller_agreement(b).at("key"));
  const double read = seller_agreement(a).at("read"), weight = seller_agreement(a).at("weight");
  CHECK(weight > 0);
  CHECK(logit(a.at("confidence").at("SUPPLIER").get<double>()) ==
        doctest::Approx(logit(read) + weight));
  CHECK(c.at("confidence").at("SUPPLIER") == seller_agreement(c).at("read"));
  // The date is marked by its year, at weight 0: compared, never agreed (three pages are too few
  // for a year apart: none is disputed).
  for (const json* page : {&a, &b, &c}) {
    const std::string date = page->at("fields").at("INVOICE_DATE");
    REQUIRE(date.size() == 10);
    const json& marked = page->at("agreement").at("INVOICE_DATE");
    CHECK(marked.at("key") == date.substr(6));
    CHECK(marked.at("weight") == 0.0);
    CHECK(marked.at("agreed") == false);
    CHECK_FALSE(marked.contains("disputed"));
  }
  // The pages were read once each; the count gave two of them a record more.
  const std::size_t lines = journal_lines(out / "results.jsonl").size();
  CHECK(lines == 5);
  check_outputs(out);

  // Nothing to read, nothing recounted: not a line more.
  const CliResult again = in.run(out, " --resume");
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(journal_lines(out / "results.jsonl").size() == lines);

  // b.png is another page now: read again, and a.png agrees with no page any more.
  fs::copy_file(kSamples / "synthetic_invoice_013.png", in.inbox / "b.png",
                fs::copy_options::overwrite_existing);
  const CliResult changed = in.run(out, " --resume");
  REQUIRE_MESSAGE(changed.exit_code == 0, changed.err);
  pages = latest_records(out);
  CHECK(seller_agreement(pages.at("a.png")).at("agreed") == false);
  CHECK(pages.at("a.png").at("confidence").at("SUPPLIER") == read);
  check_outputs(out);
}

TEST_CASE("run: killed with SIGKILL while it counts pages that agree, --resume finishes it") {
  const Inbox in;
  const fs::path reference = in.dir / "reference";
  REQUIRE(in.run(reference).exit_code == 0);
  for (const char* point :
       {"hang@applied:image=1", "hang@applied:image=2", "hang@rebuilt:image=1"}) {
    CAPTURE(point);
    const fs::path out = in.dir / (std::string("killed-") + point), err = in.dir / "err.txt";
    fs::remove(err);
    const pid_t child = docsift::testing::start_shell(std::string("env DOCSIFT_FAULTS=") + point +
                                                      " " + q(DOCSIFT_BIN) + " run " + q(in.inbox) +
                                                      " --quiet --out " + q(out) + " 2>" + q(err));
    const bool reached = docsift::testing::wait_until(
        [&] { return file_bytes(err).find("injected fault") != std::string::npos; }, 120);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE_MESSAGE(reached, file_bytes(err));
    CHECK(WIFSIGNALED(status));
    const CliResult resumed = in.run(out, " --resume");
    REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
    for (const char* name : {"predictions.csv", "confidence.csv", "review.csv"}) {
      CAPTURE(name);
      CHECK(file_bytes(out / name) == file_bytes(reference / name));
    }
    const auto pages = latest_records(out), expected = latest_records(reference);
    for (const auto& [file, record] : expected) {
      CAPTURE(file);
      CHECK(pages.at(file).at("confidence") == record.at("confidence"));
      CHECK(pages.at(file).at("agreement") == record.at("agreement"));
    }
    check_outputs(out);
  }
}

TEST_CASE("run: a seller one page misread is written as the pages that agree spell it") {
  TempDir dir;
  const fs::path inbox = dir / "inbox";
  fs::create_directories(inbox);
  draw_receipt(inbox / "a.png", "GARDENIA BAKERIES (KL) SDN BHD");
  draw_receipt(inbox / "b.png", "GARDENIA BAKERIES (KL) SDN BHD");
  draw_receipt(inbox / "c.png", "GARDENIA BAKERIES (KE) SDN BHD");  // one letter off
  const auto run = [&](const fs::path& out, const std::string& more) {
    const CliResult r = run_docsift("run " + q(inbox) + " --quiet --out " + q(out) + more);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return latest_records(out);
  };

  // ocr.batch_spelling false: each page keeps its own reading, and the third agrees with none.
  const auto own = run(dir / "own", " --set ocr.batch_spelling=false");
  const std::string kl = own.at("a.png").at("fields").at("SUPPLIER"),
                    ke = own.at("c.png").at("fields").at("SUPPLIER");
  REQUIRE(kl == own.at("b.png").at("fields").at("SUPPLIER").get<std::string>());
  const std::string same = "Tesseract read the drawn misspelling as the right name: " + ke;
  REQUIRE_MESSAGE(ke != kl, same);
  CHECK(seller_agreement(own.at("c.png")).at("agreed") == false);
  CHECK_FALSE(seller_agreement(own.at("c.png")).contains("read_value"));

  // The default: the third page's seller is the two pages' spelling, agreed, its reading kept.
  const fs::path out = dir / "out";
  const auto pages = run(out, "");
  const json& c = pages.at("c.png");
  CHECK(c.at("fields").at("SUPPLIER") == kl);
  CHECK(seller_agreement(c).at("read_value") == ke);
  CHECK(seller_agreement(c).at("key") == seller_agreement(own.at("c.png")).at("key"));
  CHECK(seller_agreement(c).at("agreed") == true);
  CHECK(logit(c.at("confidence").at("SUPPLIER").get<double>()) ==
        doctest::Approx(logit(seller_agreement(c).at("read").get<double>()) +
                        seller_agreement(c).at("weight").get<double>()));
  // What every output file says is the journal's: c.png's row of predictions.csv holds the
  // spelling.
  const auto predictions = docsift::io::read_csv(out / "predictions.csv");
  const auto column = std::find(predictions.header.begin(), predictions.header.end(), "SUPPLIER");
  REQUIRE(column != predictions.header.end());
  const auto at = static_cast<std::size_t>(column - predictions.header.begin());
  for (const auto& row : predictions.rows) CHECK(row.at(at) == kl);
  // summary.json counts it: one value respelled, the others agreed as read.
  const json summary = check_outputs(out);
  CHECK(summary.at("agreement").at("respelled") == 1);
  // Queued (every value is, under a threshold of 1), its review.csv row says what the page read.
  run(dir / "queued", " --set review.threshold=1");
  const auto review = docsift::io::read_csv(dir / "queued" / "review.csv");
  const auto col = [&](const std::string& name) { return column_of(review, name); };
  int respelled_rows = 0;
  for (const auto& row : review.rows) {
    if (row.at(col("field")) != "SUPPLIER") continue;
    const bool own = row.at(col("image_file")) == "c.png";
    CHECK(row.at(col("value")) == kl);
    const std::string said = "this page read \"" + ke + "\"; respelled as other pages read it";
    CHECK((row.at(col("check")) == said) == own);
    respelled_rows += own ? 1 : 0;
  }
  CHECK(respelled_rows == 1);
  // Counted again with nothing new: not a line more; the metrics count the same values, apart.
  const std::size_t lines = journal_lines(out / "results.jsonl").size();
  run(out, " --resume --metrics " + q(dir / "run.prom"));
  CHECK(journal_lines(out / "results.jsonl").size() == lines);
  const std::string metrics = file_bytes(dir / "run.prom");
  const json& counted = summary.at("agreement");
  const auto sample = [&](const std::string& state, std::int64_t n) {
    CHECK_MESSAGE(metrics.find("docsift_agreement_values{state=\"" + state + "\"} " +
                               std::to_string(n) + "\n") != std::string::npos,
                  metrics);
  };
  sample("respelled", 1);
  sample("agreed", counted.at("agreed").get<std::int64_t>() - 1);
  sample("alone",
         counted.at("values").get<std::int64_t>() - counted.at("agreed").get<std::int64_t>());
}

TEST_CASE("run: an address one page read with other digits is queued as pages disagree, eval too") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", out = dir / "out";
  fs::create_directories(inbox);
  draw_receipt(inbox / "a.png", "GARDENIA BAKERIES (KL) SDN BHD");
  draw_receipt(inbox / "b.png", "GARDENIA BAKERIES (KL) SDN BHD");
  draw_receipt(inbox / "c.png", "GARDENIA BAKERIES (KL) SDN BHD", "NO 17, JALAN TAMPOI 7/4,");
  // Every threshold 0: what is queued is queued for what the pages say, not a confidence.
  const CliResult r =
      run_docsift("run " + q(inbox) + " --quiet --out " + q(out) + " --set review.threshold=0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto pages = latest_records(out);
  const json& a = pages.at("a.png");
  const json& c = pages.at("c.png");
  const std::string theirs = a.at("fields").at("BUSINESS_ADDRESS");
  const std::string own = c.at("fields").at("BUSINESS_ADDRESS");
  REQUIRE(theirs == pages.at("b.png").at("fields").at("BUSINESS_ADDRESS").get<std::string>());
  REQUIRE_MESSAGE(own.find("17") != std::string::npos, own);
  const json& disputed = c.at("agreement").at("BUSINESS_ADDRESS");
  CHECK(disputed.at("disputed") == theirs);
  CHECK(disputed.at("agreed") == false);
  CHECK_FALSE(a.at("agreement").at("BUSINESS_ADDRESS").contains("disputed"));
  const auto review = c.at("review").get<std::vector<std::string>>();
  CHECK(std::find(review.begin(), review.end(), "BUSINESS_ADDRESS") != review.end());
  CHECK(c.at("review_reasons").at("BUSINESS_ADDRESS") == "pages disagree");
  // The pages read alike are not disputed (Tesseract may find them wanting for other reasons).
  for (const char* page : {"a.png", "b.png"}) {
    const json& reasons = pages.at(page).at("review_reasons");
    CHECK(reasons.value("BUSINESS_ADDRESS", "") != "pages disagree");
  }
  check_outputs(out);
  const auto rows = docsift::io::read_csv(out / "review.csv");
  const auto col = [&](const std::string& name) { return column_of(rows, name); };
  int disputed_rows = 0;
  for (const auto& row : rows.rows) {
    if (row.at(col("image_file")) != "c.png" || row.at(col("field")) != "BUSINESS_ADDRESS")
      continue;
    ++disputed_rows;
    CHECK(row.at(col("reason")) == "pages disagree");
    CHECK(row.at(col("value")) == own);
    CHECK(row.at(col("check")) == "other pages read \"" + theirs + "\"");
  }
  CHECK(disputed_rows == 1);

  // eval over the run's predictions.csv (results.jsonl beside it) predicts the same queue.
  fs::copy_file(out / "predictions.csv", dir / "truth.csv");
  const CliResult e =
      run_docsift("eval " + q(out / "predictions.csv") + " " + q(dir / "truth.csv") +
                  " --threshold 0 --report " + q(dir / "e.json"));
  REQUIRE_MESSAGE(e.exit_code == 0, e.err);
  const json predicted = json::parse(file_bytes(dir / "e.json")).at("confidence").at("review");
  CHECK(predicted.at("total") == rows.rows.size());
  std::size_t addresses = 0;
  for (const auto& row : rows.rows) addresses += row.at(col("field")) == "BUSINESS_ADDRESS" ? 1 : 0;
  CHECK(predicted.at("fields").at("BUSINESS_ADDRESS") == addresses);
}
