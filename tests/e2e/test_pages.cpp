// Documents with pages: PDF through Poppler and multi-page TIFF, each page its own record; damaged,
// encrypted, empty and over-long files fail alone with their reason; eval matches "x.pdf#page=1"
// to "x.pdf".
#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/image/pages.h"
#include "docsift/io/csv.h"
#include "docsift/io/page_name.h"
#include "docsift/io/pages.h"
#include "docsift/io/pdf.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/summary_json.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kPages = kSource / "tests/fixtures/pages";

// An uncompressed multi-page TIFF of 8-bit grey pages, written by hand (little-endian, one strip
// per page, each page's pixels followed by its directory).
void write_grey_tiff(const fs::path& path, const std::vector<at::Tensor>& pages) {
  std::string out = std::string("II*\0", 4) + std::string(4, '\0');
  const auto put16 = [&](std::uint16_t v) {
    out += static_cast<char>(v & 0xff), out += static_cast<char>(v >> 8);
  };
  const auto put32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>(v >> (8 * i));
  };
  const auto patch32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>(v >> (8 * i));
  };
  std::size_t link = 4;  // where the offset of the next directory goes
  for (const auto& rgb : pages) {
    const at::Tensor grey = rgb.to(at::kFloat).mean(2).round().to(at::kByte).contiguous();
    const auto h = static_cast<std::uint32_t>(grey.size(0)),
               w = static_cast<std::uint32_t>(grey.size(1));
    const auto data_at = static_cast<std::uint32_t>(out.size());
    out.append(reinterpret_cast<const char*>(grey.data_ptr<std::uint8_t>()),
               static_cast<std::size_t>(w) * h);
    if (out.size() % 2) out += '\0';
    patch32(link, static_cast<std::uint32_t>(out.size()));
    const std::vector<std::tuple<std::uint16_t, std::uint16_t, std::uint32_t>> tags{
        {256, 4, w},       {257, 4, h}, {258, 3, 8}, {259, 3, 1},    {262, 3, 1},
        {273, 4, data_at}, {277, 3, 1}, {278, 4, h}, {279, 4, w * h}};
    put16(static_cast<std::uint16_t>(tags.size()));
    for (const auto& [tag, type, value] : tags) {
      put16(tag);
      put16(type);
      put32(1);
      if (type == 3) {
        put16(static_cast<std::uint16_t>(value));
        put16(0);
      } else {
        put32(value);
      }
    }
    link = out.size();
    put32(0);
  }
  std::ofstream(path, std::ios::binary) << out;
}

std::map<std::string, std::map<std::string, std::string>> truth_rows() {
  return docsift::testing::read_ground_truth(kSource / "samples/ground_truth.csv");
}

}  // namespace

TEST_CASE("page names: #page=N for files with several pages, the plain name for one") {
  using docsift::io::document_key;
  using docsift::io::file_of;
  using docsift::io::page_name;
  CHECK(page_name("a/x.pdf", 1, 3) == "a/x.pdf#page=2");
  CHECK(page_name("x.pdf", 0, 1) == "x.pdf");
  CHECK(file_of("a/x.pdf#page=12") == "a/x.pdf");
  CHECK(file_of("x.png") == "x.png");
  CHECK(file_of("x#page=.png") == "x#page=.png");
  CHECK(document_key("x.pdf#page=1") == "x.pdf");
  CHECK(document_key("x.pdf#page=2") == "x.pdf#page=2");
}

TEST_CASE(
    "PDF and multi-page TIFF: a record per page, read right, bad PDFs fail alone with their "
    "reason") {
  TempDir dir;
  fs::create_directories(dir / "in");
  for (const char* name :
       {"three_pages.pdf", "one_page.pdf", "encrypted.pdf", "damaged.pdf", "empty.pdf"}) {
    fs::copy_file(kPages / name, dir / "in" / name);
  }
  std::vector<at::Tensor> pages;
  for (const char* n : {"001", "002", "003"}) {
    pages.push_back(docsift::image::read_rgb_image(
        kSource / ("samples/synthetic_invoice_" + std::string(n) + ".png")));
  }
  write_grey_tiff(dir / "in/fax.tif", pages);
  CHECK(docsift::io::image_page_count(dir / "in/fax.tif") == 3);

  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  CHECK(r.exit_code == 1);  // three files fail; the others are recorded
  std::map<std::string, nlohmann::json> by_name;
  for (auto& rec : journal_lines(dir / "out/results.jsonl")) by_name[rec["file"]] = rec;
  const auto truth = truth_rows();
  for (const std::string file : {"three_pages.pdf", "fax.tif"}) {
    for (int p = 1; p <= 3; ++p) {
      const std::string name = file + "#page=" + std::to_string(p);
      CAPTURE(name);
      REQUIRE(by_name.count(name));
      CHECK(by_name[name]["status"] == "ok");
    }
    CHECK(by_name[file + "#page=1"]["fields"]["TOTAL"] ==
          truth.at("synthetic_invoice_001.png").at("TOTAL"));
    CHECK(by_name[file + "#page=2"]["fields"]["TOTAL"] ==
          truth.at("synthetic_invoice_002.png").at("TOTAL"));
    CHECK(by_name[file + "#page=3"]["fields"]["DOCUMENT_TYPE"] == "BANK STATEMENT");
  }
  REQUIRE(by_name.count("one_page.pdf"));
  CHECK(by_name["one_page.pdf"]["fields"]["TOTAL"] ==
        truth.at("synthetic_invoice_005.png").at("TOTAL"));
  const std::map<std::string, std::string> reasons{
      {"encrypted.pdf", "encrypted"},
      {"damaged.pdf", "damaged or truncated; Poppler said: "},
      {"empty.pdf", "no pages"}};
  for (const auto& [name, reason] : reasons) {
    CAPTURE(name);
    REQUIRE(by_name.count(name));
    CHECK(by_name[name]["status"] == "failed");
    CHECK(by_name[name]["error"].get<std::string>().find(reason) != std::string::npos);
    CHECK(by_name[name]["error"].get<std::string>().find(name) != std::string::npos);
  }
  CHECK(by_name.size() == 3 + 3 + 1 + 3);
  const auto summary = docsift::testing::read_summary(dir / "out/summary.json");
  CHECK(summary["images"]["scanned"] == 6);
  CHECK(summary["images"]["pages"] == 10);

  // eval: "one_page.pdf#page=1" in the ground truth is the record "one_page.pdf".
  // The samples' header and sample 005's row, under the page's name.
  write_text(dir / "gt.csv", docsift::testing::samples_truth(
                                 {{"synthetic_invoice_005.png", "one_page.pdf#page=1"}}));
  const auto eval =
      run_docsift("eval " + shell_quote((dir / "out/predictions.csv").string()) + " " +
                  shell_quote((dir / "gt.csv").string()) + " --fields " +
                  shell_quote((kSource / "configs/fields/business-documents.yaml").string()));
  CHECK_MESSAGE(eval.out.find("over 1 images") != std::string::npos,
                std::string(eval.out + eval.err));

  // input.max_pages: a longer file fails with the limit named.
  fs::create_directories(dir / "in2");
  fs::copy_file(kPages / "three_pages.pdf", dir / "in2/three_pages.pdf");
  const auto limited = run_docsift("run " + shell_quote((dir / "in2").string()) + " --engine ocr " +
                                   "--set input.max_pages=2 --out " +
                                   shell_quote((dir / "out2").string()) + " --quiet");
  CHECK(limited.exit_code == 1);
  bool named = false;
  for (const auto& rec : journal_lines(dir / "out2/results.jsonl")) {
    named = named || rec.value("error", "").find("input.max_pages (2)") != std::string::npos;
  }
  CHECK(named);
}

TEST_CASE(
    "PDF rendering is bounded: the page size is checked against the pixel limit before rendering") {
  docsift::io::ImageLimits small;
  small.max_pixels = 1'000'000;
  const docsift::io::PdfPixels page = docsift::io::render_pdf_page(kPages / "one_page.pdf", 0, 100);
  CHECK(page.height == 1100);  // 11 in at 100 dpi
  CHECK(page.width == 850);
  CHECK(page.rgb.size() == 1100u * 850u * 3u);
  docsift::io::PageOptions at_100;
  at_100.pdf_dpi = 100;
  const at::Tensor tensor = docsift::image::read_page(kPages / "one_page.pdf", 0, at_100);
  CHECK(tensor.sizes() == at::IntArrayRef({1100, 850, 3}));
  CHECK(std::equal(page.rgb.begin(), page.rgb.end(), tensor.data_ptr<std::uint8_t>()));
  try {
    docsift::io::render_pdf_page(kPages / "one_page.pdf", 0, 300, small);
    FAIL("no error");
  } catch (const docsift::FileError& e) {
    CHECK(std::string(e.what()).find("lower input.pdf_dpi") != std::string::npos);
  }
  CHECK_THROWS_AS(docsift::io::render_pdf_page(kPages / "one_page.pdf", 1, 100),
                  docsift::FileError);
  docsift::io::PageOptions two_pages;
  two_pages.max_pages = 2;
  CHECK_THROWS_AS(docsift::io::page_count(kPages / "three_pages.pdf", two_pages),
                  docsift::FileError);
}

TEST_CASE(
    "pages read at once: ocr.threads 1 and 3 write the same records in the same order, failed "
    "pages and PDF pages among them") {
  TempDir tmp;
  const fs::path in = tmp / "in";
  fs::create_directories(in);
  for (const char* name :
       {"synthetic_invoice_001.png", "synthetic_invoice_003.png", "synthetic_invoice_008.png"}) {
    fs::copy_file(kSource / "samples" / name, in / name);
  }
  // Pages rendered and read, a text layer, and a file that fails: PDFs are opened one at a time.
  for (const char* name : {"three_pages.pdf", "text_invoice_2p.pdf", "damaged.pdf"})
    fs::copy_file(kPages / name, in / name);
  const auto run = [&](const std::string& out, int threads) {
    const auto r = run_docsift(
        "run " + shell_quote(in.string()) + " --out " + shell_quote((tmp / out).string()) +
        " --engine ocr --quiet --set ocr.threads=" + std::to_string(threads));
    CHECK_MESSAGE(r.exit_code == 1, r.err);  // a page failed (README's table: exit 1)
  };
  run("one", 1);
  run("three", 3);
  const auto one = journal_lines(tmp / "one" / "results.jsonl");
  const auto three = journal_lines(tmp / "three" / "results.jsonl");
  // 3 images, 3 + 2 PDF pages, one damaged file; then a record more for each page whose seller or
  // address another page read alike (batch/agreement.h), in the same order too.
  REQUIRE(docsift::testing::latest_records(tmp / "one").size() == 9);
  REQUIRE(one.size() > 9);
  REQUIRE(three.size() == one.size());
  int failed = 0;
  for (std::size_t i = 0; i < one.size(); ++i) {
    CAPTURE(one[i]["file"].get<std::string>());
    CHECK(three[i]["file"] == one[i]["file"]);
    CHECK(three[i]["status"] == one[i]["status"]);
    CHECK(three[i]["config_hash"] == one[i]["config_hash"]);  // ocr.threads changes no record
    for (const char* key : {"fields", "confidence", "review", "boxes", "line_items", "error"}) {
      CAPTURE(key);
      CHECK(three[i].value(key, nlohmann::json()) == one[i].value(key, nlohmann::json()));
    }
    failed += one[i]["status"] == "failed";
  }
  CHECK(failed == 1);
  for (const char* table :
       {"predictions.csv", "confidence.csv", "review.csv", "line_items.csv", "documents.csv"}) {
    CAPTURE(table);
    CHECK(file_bytes(tmp / "three" / table) == file_bytes(tmp / "one" / table));
  }
}
