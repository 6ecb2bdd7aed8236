// `docsift run` end to end with the fixture model: samples/, the journal, kill -9 and --resume, the
// output lock, bad files, and the decoder on odd but valid images.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "docsift/batch/record.h"
#include "docsift/error.h"
#include "docsift/image/pages.h"
#include "docsift/io/csv.h"
#include "docsift/io/exif.h"
#include "docsift/io/journal.h"
#include "docsift/io/pages.h"
#include "docsift/io/scan.h"
#include "docsift/journal/lock.h"
#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/log_lines.h"
#include "support/processes.h"
#include "support/skip.h"
#include "support/summary_json.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::start_and_wait_for_journal;
using docsift::testing::TempDir;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const std::string kModel = shell_quote((kSource / "tests/fixtures/internvl/hf").string());
// Small and fast: the fixture model on the CPU in float32, two tiles at most.
const std::string kFast = docsift::testing::fast_run_options({.fields_file = true});

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// `docsift run samples/` on the fixture model into `out`, sent `sig` once `records` pages are
// journaled; its stderr is out/stderr.txt. Returns the exit status.
int run_and_signal(const fs::path& out, int sig, std::size_t records) {
  const std::string command =
      std::string(DOCSIFT_BIN) + " run " + shell_quote((kSource / "samples").string()) + kFast +
      " --set generation.max_new_tokens=40 --quiet --out " + shell_quote(out.string()) + " 2>" +
      shell_quote((out / "stderr.txt").string());
  const pid_t child = start_and_wait_for_journal(command, out / "results.jsonl", records);
  ::kill(child, sig);
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

}  // namespace

TEST_CASE(
    "run with extraction.decoding: free and keys: the mode journaled, keys refuses sampling in one "
    "line") {
  TempDir out;
  const std::string page = shell_quote((kSource / "samples/synthetic_invoice_001.png").string());
  const auto free =
      run_docsift("run " + page + kFast +
                  " --set extraction.decoding=free --set generation.max_new_tokens=6 --out " +
                  shell_quote(out.path().string()));
  REQUIRE_MESSAGE(free.exit_code == 0, free.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 1);
  CHECK(records[0]["decoding"] == "free");
  CHECK(records[0]["tokens"]["generated"] == 6);
  CHECK_FALSE(records[0]["tokens"].contains("forced"));
  TempDir out2;
  const auto sampled =
      run_docsift("run " + page + kFast + " --set generation.temperature=0.7 --out " +
                  shell_quote(out2.path().string()));
  CHECK(sampled.exit_code == 2);
  CHECK(sampled.err.find("extraction.decoding: keys is greedy") != std::string::npos);
  CHECK(sampled.err.find("extraction.decoding: free") != std::string::npos);
}

TEST_CASE(
    "run on samples/: a record per image, a well-formed CSV in the ground-truth layout, eval "
    "runs") {
  TempDir out;
  const auto r =
      run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                  " --set generation.max_new_tokens=8 --out " + shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 20);
  std::set<std::string> files;
  for (const auto& rec : records) {
    files.insert(rec["file"].get<std::string>());
    CHECK(rec["status"] == "ok");
    CHECK(rec["tier"] == "standard");
    CHECK(rec["fields"].size() == 25);
    CHECK(rec["tokens"]["generated"] == 8);
    // keys decoding, the default: DOCUMENT_TYPE: and the first field's key were fed by docsift.
    CHECK(rec["decoding"] == "keys");
    CHECK(rec["tokens"]["forced"].get<int>() > 0);
    CHECK(rec["raw_response"].get<std::string>().rfind("DOCUMENT_TYPE:", 0) == 0);
    CHECK(rec["timings_s"]["total"].get<double>() > 0);
    CHECK(rec["memory"]["after"]["host_rss"].get<double>() > 0);
    CHECK(rec["attempts"].size() == 1);
  }
  CHECK(files.size() == 20);
  const auto csv = docsift::io::read_csv(out.path() / "predictions.csv");
  const auto truth = docsift::io::read_csv(kSource / "samples/ground_truth.csv");
  CHECK(csv.header == truth.header);
  CHECK(csv.rows.size() == 20);
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["images"]["ok"] == 20);
  CHECK(summary["tiers"]["standard"] == 20);
  const auto eval =
      run_docsift("eval " + shell_quote((out.path() / "predictions.csv").string()) + " " +
                  shell_quote((kSource / "samples/ground_truth.csv").string()) + " --fields " +
                  shell_quote((kSource / "configs/fields/business-documents.yaml").string()));
  CHECK_MESSAGE(eval.exit_code == 0, eval.err);
  CHECK(eval.out.find("overall") != std::string::npos);

  // A second run into the same folder without --resume refuses to touch the journal.
  const auto again = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                                 " --out " + shell_quote(out.path().string()));
  CHECK(again.exit_code == 3);
  CHECK(again.err.find("--resume") != std::string::npos);
  // --resume with everything done processes nothing and keeps every record.
  const auto resumed = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                                   " --set generation.max_new_tokens=8 --resume --out " +
                                   shell_quote(out.path().string()));
  CHECK(resumed.exit_code == 0);
  CHECK(journal_lines(out.path() / "results.jsonl").size() == 20);
  // --resume with another configuration would mix results: refused, unless asked for.
  const auto changed = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                                   " --set generation.max_new_tokens=9 --resume --out " +
                                   shell_quote(out.path().string()));
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("another configuration") != std::string::npos);
  CHECK(changed.err.find("--allow-config-change") != std::string::npos);
  const auto allowed =
      run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                  " --set generation.max_new_tokens=9 --resume --allow-config-change --out " +
                  shell_quote(out.path().string()));
  CHECK(allowed.exit_code == 0);
  CHECK(
      docsift::testing::read_summary(out.path() / "summary.json")["earlier_config_hashes"].size() ==
      1);
}

TEST_CASE(
    "run on samples/ with the InternVL3.5 fixture, both layouts: a record per image, the CSV, eval "
    "runs") {
  for (const std::string layout : {"hf", "original"}) {
    CAPTURE(layout);
    TempDir out;
    const std::string model =
        shell_quote((kSource / "tests/fixtures/internvl35" / layout).string());
    const auto r =
        run_docsift("run " + shell_quote((kSource / "samples").string()) + " --model " + model +
                    " --device cpu --set model.dtype=float32 --set model.max_tiles=2 --set "
                    "generation.max_new_tokens=8 --quiet --out " +
                    shell_quote(out.path().string()));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto records = journal_lines(out.path() / "results.jsonl");
    CHECK(records.size() == 20);
    for (const auto& rec : records) {
      CHECK(rec["status"] == "ok");
      CHECK(rec["tokens"]["generated"] == 8);
    }
    const auto e = run_docsift("eval " + shell_quote((out.path() / "predictions.csv").string()) +
                               " " + shell_quote((kSource / "samples/ground_truth.csv").string()));
    CHECK_MESSAGE(e.exit_code == 0, e.err);
  }
}

TEST_CASE("run killed with SIGKILL mid-batch resumes: every image once, CSV matches the journal") {
  TempDir out;
  const std::string command =
      std::string(DOCSIFT_BIN) + " run " + shell_quote((kSource / "samples").string()) + kFast +
      " --set generation.max_new_tokens=150 --quiet --out " + shell_quote(out.path().string());
  // Kill it once a few images are journaled, while later ones are in flight.
  const fs::path journal = out.path() / "results.jsonl";
  const pid_t child = start_and_wait_for_journal(command, journal, 4);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const auto before = journal_lines(journal).size();
  MESSAGE("killed after " << before << " of 20 images were journaled");
  REQUIRE(before >= 4);
  REQUIRE(before < 20);

  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                             " --set generation.max_new_tokens=150 --resume --out " +
                             shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(journal);
  std::set<std::string> files;
  for (const auto& rec : records)
    CHECK(files.insert(rec["file"].get<std::string>()).second);  // none twice
  CHECK(records.size() == 20);
  const auto csv = docsift::io::read_csv(out.path() / "predictions.csv");
  REQUIRE(csv.rows.size() == 20);
  std::set<std::string> csv_files;
  for (const auto& row : csv.rows) csv_files.insert(row[0]);
  CHECK(csv_files == files);
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["images"]["resumed_from_journal"] == before);
}

TEST_CASE(
    "run with output.formats: [jsonl] writes the journal alone, and a resume with csv rebuilds the "
    "tables from it") {
  TempDir tmp;
  const std::string samples = shell_quote((kSource / "samples").string());
  const fs::path only_journal = tmp / "jsonl", both = tmp / "both";
  auto r = run_docsift("run " + samples + kFast + " --set 'output.formats=[jsonl]' --quiet --out " +
                       shell_quote(only_journal.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(only_journal / "results.jsonl").size() == 20);
  for (const char* table : {"predictions.csv", "confidence.csv", "review.csv"})
    CHECK_FALSE(fs::exists(only_journal / table));
  CHECK(docsift::testing::read_summary(only_journal / "summary.json")["images"]["ok"] == 20);

  // csv now (another config hash, so --allow-config-change): nothing is read again, and the tables
  // come from the journal alone, the same bytes as a run that wrote them as it went.
  r = run_docsift("run " + samples + kFast + " --resume --allow-config-change --quiet --out " +
                  shell_quote(only_journal.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(only_journal / "results.jsonl").size() == 20);
  r = run_docsift("run " + samples + kFast + " --quiet --out " + shell_quote(both.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* table : {"predictions.csv", "confidence.csv", "review.csv"}) {
    CHECK_MESSAGE(file_bytes(only_journal / table) == file_bytes(both / table), table);
  }
}

TEST_CASE(
    "journal: a torn last line is cut on resume, a damaged or wrong-shaped line is an error with "
    "its number") {
  TempDir dir;
  const fs::path path = dir / "results.jsonl";
  // The smallest well-formed record: a failed image.
  const auto rec = [](const std::string& file) {
    return "{\"file\":\"" + file +
           "\",\"status\":\"failed\",\"error\":\"x\",\"timings_s\":{},\"memory\":{}}";
  };
  write_bytes(path, rec("a.png") + "\n{\"file\":\"b.png\",\"sta");
  {
    std::vector<std::string> keys;
    docsift::io::Journal journal(path, /*resume=*/true,
                                 [&](const nlohmann::json& json, std::uint64_t) {
                                   keys.push_back(docsift::batch::Record::from_journal(json).key());
                                 });
    CHECK(keys == std::vector<std::string>{"a.png"});
    CHECK(journal.dropped_torn_bytes() == 20);  // {"file":"b.png","sta
    journal.append(nlohmann::json::parse(rec("b.png")));
  }
  CHECK(journal_lines(path).size() == 2);
  CHECK_THROWS_WITH_AS(docsift::io::Journal(path, false, docsift::batch::check_journal_record),
                       doctest::Contains("--resume"), docsift::FileError);
  write_bytes(path, rec("a.png") + "\nnot json\n" + rec("c.png") + "\n");
  CHECK_THROWS_WITH_AS(docsift::io::Journal(path, true, docsift::batch::check_journal_record),
                       doctest::Contains("results.jsonl:2"), docsift::FileError);
  // Valid JSON of the wrong shape names the line and the key, not a library exception.
  write_bytes(path, rec("a.png") + "\n" + rec("b.png") + "\n{\"file\":\"c.png\",\"status\":7}\n");
  CHECK_THROWS_WITH_AS(docsift::io::Journal(path, true, docsift::batch::check_journal_record),
                       doctest::Contains("results.jsonl:3: \"status\" must be"),
                       docsift::FileError);
  write_bytes(
      path,
      "{\"file\":\"a.png\",\"status\":\"ok\",\"timings_s\":{},\"memory\":{},\"fields\":[]}\n");
  CHECK_THROWS_WITH_AS(docsift::io::Journal(path, true, docsift::batch::check_journal_record),
                       doctest::Contains("results.jsonl:1: \"fields\" must be an object"),
                       docsift::FileError);
}

TEST_CASE(
    "the output lock refuses a second run on the same --out and is released with the process") {
  TempDir out;
  {
    docsift::journal::OutputLock held(out.path());
    const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                               " --out " + shell_quote(out.path().string()));
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("docsift run (pid " + std::to_string(::getpid()) + ") is writing here") !=
          std::string::npos);
  }
  CHECK_NOTHROW(docsift::journal::OutputLock(out.path()));
  {
    // A merge holding it is named as a merge; a holder whose recorded pid is gone is said to be
    // gone.
    docsift::journal::OutputLock held(out.path(), "merge");
    auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                         shell_quote(out.path().string()));
    CHECK(r.err.find("docsift merge (pid " + std::to_string(::getpid()) + ") is writing here") !=
          std::string::npos);
    std::ofstream(out / ".docsift.lock", std::ios::trunc) << "999999999 run";
    r = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                    shell_quote(out.path().string()));
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("recorded holder, docsift run (pid 999999999), is gone") != std::string::npos);
  }
}

TEST_CASE("run over bad files: each fails with its reason, the good ones succeed, exit 1") {
  TempDir in, out;
  fs::copy_file(kSource / "samples/synthetic_invoice_001.png", in / "good_1.png");
  fs::copy_file(kSource / "tests/fixtures/images/exif_rotated.jpg", in / "good_2.JPG");
  write_bytes(in / "empty.png", "");
  const std::string png = file_bytes(kSource / "samples/synthetic_invoice_002.png");
  write_bytes(in / "truncated.png", png.substr(0, png.size() / 3));
  write_bytes(in / "text.jpg", "This is a text file, not a JPEG.\n");
  // A PNG header declaring 100000 × 100000 pixels, and nothing else.
  std::string huge("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\x01\x86\xa0\0\x01\x86\xa0\x08\x02\0\0\0", 29);
  write_bytes(in / "huge.png", huge + std::string(4, '\0'));
  write_bytes(in / ".hidden.png", png);
  write_bytes(in / "notes.txt", "not an image extension");
  const auto r = run_docsift("run " + shell_quote(in.path().string()) + kFast +
                             " --set generation.max_new_tokens=4 --log-format json --out " +
                             shell_quote(out.path().string()));
  CHECK(r.exit_code == 1);
  std::map<std::string, nlohmann::json> by_file;
  for (const auto& rec : journal_lines(out.path() / "results.jsonl")) by_file[rec["file"]] = rec;
  REQUIRE(by_file.size() == 6);  // hidden and non-image files skipped
  CHECK(by_file["good_1.png"]["status"] == "ok");
  CHECK(by_file["good_2.JPG"]["status"] == "ok");
  const auto reason = [&](const std::string& f) { return by_file[f]["error"].get<std::string>(); };
  CHECK(by_file["empty.png"]["status"] == "failed");
  CHECK(reason("empty.png").find("empty file") != std::string::npos);
  CHECK(reason("truncated.png").find("not a decodable image") != std::string::npos);
  CHECK(reason("text.jpg").find("not a PNG, JPEG, TIFF, WebP or BMP file") != std::string::npos);
  CHECK(reason("huge.png").find("100000×100000") != std::string::npos);
  // --log-format json: every stderr line one object, one "image" event per image.
  int image_events = 0;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    CAPTURE(line);
    REQUIRE(nlohmann::json::accept(line));
    if (nlohmann::json::parse(line)["event"] == "image") ++image_events;
  }
  CHECK(image_events == 6);
}

TEST_CASE("decoder: odd but valid images come out as RGB with the right content") {
  const fs::path images = kSource / "tests/fixtures/images";
  using docsift::image::read_rgb_image;
  const at::Tensor one = read_rgb_image(images / "one_pixel.png");
  CHECK(one.sizes() == at::IntArrayRef({1, 1, 3}));
  CHECK(one[0][0][1].item<int>() == 200);
  const at::Tensor g16 = read_rgb_image(images / "gray16.png");  // 16-bit gray, 8 bands 0..65535
  CHECK(g16.sizes() == at::IntArrayRef({8, 64, 3}));
  CHECK(g16[0][0][0].item<int>() == 0);
  CHECK(g16[0][63][2].item<int>() == 255);
  CHECK(std::abs(g16[0][32][0].item<int>() - 146) <= 1);  // band 4: 65535·4/7 → 145.7
  const at::Tensor rgba = read_rgb_image(images / "transparent.png");
  CHECK(rgba[0][0][0].item<int>() == 255);  // transparent → white paper
  CHECK(rgba[0][0][2].item<int>() == 255);
  CHECK(rgba[10][10][0].item<int>() == 255);  // opaque red stays red
  CHECK(rgba[10][10][1].item<int>() == 0);
  const at::Tensor cmyk = read_rgb_image(images / "cmyk.jpg");  // pure cyan
  CHECK(cmyk[8][8][0].item<int>() < 40);
  CHECK(cmyk[8][8][1].item<int>() > 200);
  CHECK(cmyk[8][8][2].item<int>() > 200);
  const at::Tensor rotated =
      read_rgb_image(images / "exif_rotated.jpg");  // stored 40×20, orientation 6
  CHECK(rotated.sizes() == at::IntArrayRef({40, 20, 3}));
  CHECK(rotated[2][10][0].item<int>() < 60);  // the stored left edge is now the top
  CHECK(rotated[37][10][0].item<int>() > 200);
  // PNG (eXIf), WebP (EXIF chunk after the image data) and TIFF (its own IFD): every orientation
  // 2-8 between them, each decoded exactly as Pillow's exif_transpose shows it.
  for (const std::string name : {"exif_3.png", "exif_6.png", "exif_5.webp", "exif_8.webp",
                                 "exif_2.tif", "exif_4.tif", "exif_7.tif"}) {
    CAPTURE(name);
    const at::Tensor got = read_rgb_image(images / name);
    const at::Tensor want = read_rgb_image(images / (name + ".expected.png"));
    REQUIRE(got.sizes() == want.sizes());
    CHECK(got.equal(want));
  }
}

TEST_CASE("EXIF orientation parser: bounded over malformed input") {
  using docsift::io::exif_orientation;
  using docsift::io::tiff_orientation;
  // A big-endian TIFF IFD with orientation 8, then the same cut short at every length.
  const std::vector<unsigned char> tiff = {'M',  'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01,
                                           0x12, 0,   3, 0,  0, 0, 1, 0, 8, 0, 0};
  CHECK(tiff_orientation(tiff.data(), tiff.size()) == 8);
  for (std::size_t n = 0; n < 20; ++n) CHECK(tiff_orientation(tiff.data(), n) == 1);
  std::vector<unsigned char> exif = {'E', 'x', 'i', 'f', 0, 0};
  exif.insert(exif.end(), tiff.begin(), tiff.end());
  CHECK(exif_orientation(exif.data(), exif.size()) == 8);
  // Out-of-range values, a wrong type, an IFD offset past the end, a PNG chunk claiming 4 GB.
  auto bad = tiff;
  bad[19] = 9;
  CHECK(tiff_orientation(bad.data(), bad.size()) == 1);
  bad = tiff;
  bad[13] = 4;  // LONG
  CHECK(tiff_orientation(bad.data(), bad.size()) == 1);
  bad = tiff;
  bad[4] = 0xFF;
  CHECK(tiff_orientation(bad.data(), bad.size()) == 1);
  const std::vector<unsigned char> png = {0x89, 'P',  'N',  'G',  '\r', '\n', 0x1A, '\n',
                                          0xFF, 0xFF, 0xFF, 0xF0, 'e',  'X',  'I',  'f'};
  CHECK(exif_orientation(png.data(), png.size()) == 1);
}

TEST_CASE(
    "scan: sorted, any-case extensions, hidden skipped, each file once, symlink loops survived") {
  TempDir dir;
  fs::create_directories(dir / "sub/deeper");
  fs::create_directories(dir / ".cache");
  for (const char* f : {"b.PNG", "a.jpeg", "c.TiFf", "sub/d.webp", "sub/deeper/e.bmp",
                        ".cache/x.png", "z.txt", "f.Pdf"}) {
    write_bytes(dir / f, "x");
  }
  fs::create_directory_symlink(dir.path(), dir / "sub/loop");
  fs::create_symlink(dir / "b.PNG", dir / "b_link.png");
  std::vector<std::string> flat, deep;
  for (const auto& s : docsift::io::scan_images(dir.path(), false)) flat.push_back(s.relative);
  for (const auto& s : docsift::io::scan_images(dir.path(), true)) deep.push_back(s.relative);
  CHECK(flat == std::vector<std::string>{"a.jpeg", "b.PNG", "c.TiFf", "f.Pdf"});
  CHECK(deep == std::vector<std::string>{"a.jpeg", "b.PNG", "c.TiFf", "f.Pdf", "sub/d.webp",
                                         "sub/deeper/e.bmp"});
  CHECK_THROWS_AS(docsift::io::scan_images(dir / "missing", false), docsift::FileError);
}

TEST_CASE(
    "run and generate with model.quantization=int8: records say so, the weight bytes drop as "
    "measured") {
  TempDir fp32_out, int8_out;
  const std::string samples = shell_quote((kSource / "samples").string());
  const auto plain =
      run_docsift("run " + samples + kFast + " --limit 2 --set generation.max_new_tokens=4 --out " +
                  shell_quote(fp32_out.path().string()));
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  const auto quantized = run_docsift(
      "run " + samples + kFast +
      " --limit 2 --set generation.max_new_tokens=4 --set model.quantization=int8 --out " +
      shell_quote(int8_out.path().string()));
  REQUIRE_MESSAGE(quantized.exit_code == 0, quantized.err);
  const auto a = journal_lines(fp32_out.path() / "results.jsonl");
  const auto b = journal_lines(int8_out.path() / "results.jsonl");
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(b[i]["status"] == "ok");
    CHECK(a[i]["model"]["quantization"] == "none");
    CHECK(b[i]["model"]["quantization"] == "int8");
    CHECK(b[i]["config_hash"] != a[i]["config_hash"]);
  }
  // The fixture's decoder linears are 4× smaller in int8 (plus a float32 scale per row); the vision
  // tower and embeddings stay float32, so the whole model shrinks by the factor printed here.
  const double fp32_bytes = a[0]["model"]["weight_bytes"].get<double>(),
               int8_bytes = b[0]["model"]["weight_bytes"].get<double>();
  MESSAGE("journal weight bytes: float32 " << fp32_bytes << ", int8 " << int8_bytes << " ("
                                           << fp32_bytes / int8_bytes << "x smaller)");
  CHECK(int8_bytes < fp32_bytes * 0.7);

  const auto gen =
      run_docsift("generate --model " + kModel + " --image " +
                  shell_quote((kSource / "tests/fixtures/internvl/images/one_tile.png").string()) +
                  " --prompt hi --device cpu --dtype float32 --max-new-tokens 3 --json --set "
                  "model.quantization=int8");
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.err);
  const auto g = nlohmann::json::parse(gen.out);
  CHECK(g["quantization"] == "int8");
  CHECK(g["weight_bytes"] == b[0]["model"]["weight_bytes"]);
  CHECK(g["generated_tokens"] == 3);
}

TEST_CASE("run never writes through a planted symlink in --out, and refuses before any image") {
  const std::string samples = shell_quote((kSource / "samples").string());
  for (const std::string name :
       {".docsift.lock", "predictions.csv.tmp", "results.jsonl", "summary.json"}) {
    for (const bool dangling : {false, true}) {
      CAPTURE(name);
      CAPTURE(dangling);
      TempDir out, elsewhere;
      const fs::path victim = elsewhere.path() / "victim.txt";
      if (!dangling) write_bytes(victim, "precious\n");
      fs::create_symlink(victim, out.path() / name);
      const auto r = run_docsift("run " + samples + kFast +
                                 " --limit 1 --set generation.max_new_tokens=2 --out " +
                                 shell_quote(out.path().string()));
      CHECK(r.exit_code == 3);
      CHECK(r.err.find(name + ": is a symbolic link") != std::string::npos);
      if (dangling) {
        CHECK_FALSE(fs::exists(victim));  // nothing was created through the link
      } else {
        CHECK(file_bytes(victim) == "precious\n");
      }
      CHECK_FALSE(fs::exists(out.path() / "results.jsonl.tmp"));
      if (name != "results.jsonl")
        CHECK_FALSE(fs::exists(out.path() / "results.jsonl"));  // refused before any image
    }
  }
  // A folder where a file goes is refused too.
  TempDir out;
  fs::create_directory(out.path() / "summary.json");
  const auto r = run_docsift("run " + samples + kFast + " --limit 1 --out " +
                             shell_quote(out.path().string()));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("summary.json: exists and is not a regular file") != std::string::npos);
}

TEST_CASE("run: an empty --out is an error, a config file over 1 MiB is refused quickly") {
  const auto empty =
      run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast + " --out ''");
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("--out: empty") != std::string::npos);
  TempDir dir;
  {
    std::ofstream big(dir.path() / "big.yaml");
    for (int i = 0; i < 900000; ++i) big << "unknown_key_" << i << ": " << i << "\n";  // ~20 MB
  }
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_docsift("config --config " + shell_quote((dir.path() / "big.yaml").string()));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("a config file may be at most 1 MiB") != std::string::npos);
  CHECK(seconds < 5);
}

TEST_CASE(
    "SIGTERM mid-run: the image in flight finishes, CSV and summary are written, exit 5, --resume "
    "completes") {
  TempDir out;
  const fs::path journal = out.path() / "results.jsonl";
  const int status = run_and_signal(out.path(), SIGTERM, 3);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
  const std::string err = file_bytes(out.path() / "stderr.txt");
  CHECK(err.find("stopped by SIGTERM") != std::string::npos);
  CHECK(err.find("--resume") != std::string::npos);
  const auto records = journal_lines(journal);
  MESSAGE("stopped after " << records.size() << " of 20 images");
  REQUIRE(records.size() >= 3);
  REQUIRE(records.size() < 20);
  const auto csv = docsift::io::read_csv(out.path() / "predictions.csv");
  CHECK(csv.rows.size() == records.size());  // consistent with the journal at the stop
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["interrupted"].get<std::string>().find("SIGTERM") != std::string::npos);
  CHECK(summary["images"]["ok"] == records.size());

  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                             " --set generation.max_new_tokens=40 --resume --out " +
                             shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(journal).size() == 20);
  CHECK(docsift::testing::read_summary(out.path() / "summary.json")["interrupted"].is_null());
}

TEST_CASE(
    "a truncated TIFF and WebP fail with their reason, and libtiff and libwebp never print by "
    "themselves") {
  TempDir dir;
  fs::create_directories(dir / "in");
  const cv::Mat page =
      cv::imread((kSource / "samples/synthetic_invoice_001.png").string(), cv::IMREAD_COLOR);
  REQUIRE_FALSE(page.empty());
  for (const char* ext : {".tif", ".webp"}) {
    std::vector<unsigned char> bytes;
    REQUIRE(cv::imencode(ext, page, bytes));
    bytes.resize(bytes.size() * 6 / 10);  // cut mid-image
    write_bytes(dir / "in" / (std::string("cut") + ext), std::string(bytes.begin(), bytes.end()));
  }
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --out " +
                             shell_quote((dir / "out").string()));
  CHECK(r.exit_code == 1);
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK(docsift::testing::log_body(line).starts_with("docsift: "));
  }
  const auto records = journal_lines(dir / "out" / "results.jsonl");
  REQUIRE(records.size() == 2);
  for (const auto& rec : records) {
    CAPTURE(rec["file"].get<std::string>());
    CHECK(rec["status"] == "failed");
    CHECK(rec["error"].get<std::string>().find("not a decodable image") != std::string::npos);
  }
}

TEST_CASE(
    "a truncated JPEG fails with the decoder's reason, or with input.accept_truncated reads with a "
    "warning") {
  TempDir in, out, out2;
  const cv::Mat page =
      cv::imread((kSource / "samples" / "synthetic_invoice_001.png").string(), cv::IMREAD_COLOR);
  REQUIRE_FALSE(page.empty());
  std::vector<unsigned char> jpeg;
  REQUIRE(cv::imencode(".jpg", page, jpeg));
  jpeg.resize(jpeg.size() * 4 / 10);  // cut to 40 %
  write_bytes(in / "cut.jpg", std::string(jpeg.begin(), jpeg.end()));
  auto r = run_docsift("run " + shell_quote(in.path().string()) + " --out " +
                       shell_quote(out.path().string()));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("libjpeg") == std::string::npos);  // never printed raw
  CHECK(r.err.find("Premature end of JPEG file\n") == std::string::npos);
  auto records = journal_lines(out / "results.jsonl");
  REQUIRE(records.size() == 1);
  CHECK(records[0]["status"] == "failed");
  const std::string error = records[0]["error"];
  CHECK(error.find("truncated or damaged image data") != std::string::npos);
  CHECK(error.find("Premature end of JPEG file") != std::string::npos);
  CHECK(error.find("input.accept_truncated") != std::string::npos);

  r = run_docsift("run " + shell_quote(in.path().string()) +
                  " --set input.accept_truncated=true --out " + shell_quote(out2.path().string()));
  CHECK(r.exit_code == 0);
  records = journal_lines(out2 / "results.jsonl");
  REQUIRE(records.size() == 1);
  CHECK(records[0]["status"] == "ok");
  CHECK(records[0]["warning"].get<std::string>().find("Premature end of JPEG file") !=
        std::string::npos);
}

TEST_CASE("an image the user may not read is 'permission denied', not a damaged image") {
  TempDir in, out;
  fs::copy_file(kSource / "samples" / "synthetic_invoice_001.png", in / "private.png");
  fs::permissions(in / "private.png", fs::perms::none);
  fs::permissions(in.path(), fs::perms::all);
  fs::permissions(out.path(), fs::perms::all);
  // root reads any file: run docsift as nobody then (setpriv, util-linux).
  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const auto r = docsift::testing::run_shell(as_user + std::string(DOCSIFT_BIN) + " run " +
                                             shell_quote(in.path().string()) + " --out " +
                                             shell_quote((out / "results").string()));
  if (r.exit_code != 1 && r.err.find("Permission denied") == std::string::npos) {
    DOCSIFT_SKIP("cannot run docsift as another user here: " << r.err.substr(0, 200));
  }
  CHECK(r.exit_code == 1);
  const auto records = journal_lines(out / "results" / "results.jsonl");
  REQUIRE(records.size() == 1);
  const std::string error = records[0]["error"];
  CHECK(error.find("Permission denied") != std::string::npos);
  CHECK(error.find("not a decodable image") == std::string::npos);
  CHECK(r.err.find("WARN") == std::string::npos);  // no raw OpenCV line
}

TEST_CASE(
    "SIGHUP (a closed terminal or ssh session) stops the run as SIGTERM does: exit 5, summary, "
    "resume hint") {
  TempDir out;
  const fs::path journal = out.path() / "results.jsonl";
  const int status = run_and_signal(out.path(), SIGHUP, 2);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
  const std::string err = file_bytes(out.path() / "stderr.txt");
  CHECK(err.find("stopped by SIGHUP") != std::string::npos);
  CHECK(err.find("--resume") != std::string::npos);
  const auto records = journal_lines(journal);
  REQUIRE(records.size() < 20);
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["interrupted"].get<std::string>().find("SIGHUP") != std::string::npos);
  CHECK(docsift::io::read_csv(out.path() / "predictions.csv").rows.size() == records.size());
}

TEST_CASE(
    "a journal write that fails (file-size limit) leaves no half line: exit 5, --resume "
    "completes") {
  TempDir out;
  // Room for a couple of records (each a few KB) under RLIMIT_FSIZE; SIGXFSZ is ignored by docsift.
  const auto limited = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                                       " --set generation.max_new_tokens=2 --quiet --out " +
                                       shell_quote(out.path().string()),
                                   "ulimit -f 16;");
  CHECK(limited.exit_code == 5);
  CHECK(limited.err.find("results.jsonl: cannot write") != std::string::npos);
  CHECK(limited.err.find("partial record was removed") != std::string::npos);
  const std::string text = file_bytes(out.path() / "results.jsonl");
  REQUIRE_FALSE(text.empty());
  CHECK(text.back() == '\n');  // ends at a complete record
  const auto before = journal_lines(out.path() / "results.jsonl").size();
  MESSAGE("the limit stopped the run after " << before << " records");
  CHECK(before < 20);
  const auto resumed = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                                   " --set generation.max_new_tokens=2 --resume --out " +
                                   shell_quote(out.path().string()));
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(journal_lines(out.path() / "results.jsonl").size() == 20);
}

TEST_CASE(
    "a full disk mid-run: the CSV holds whole rows, exactly the journal's, the stop counts them, "
    "no stale summary") {
  TempDir dir;
  const fs::path disk = dir / "disk";
  fs::create_directories(disk);
  // A real full disk: a 40 KB tmpfs takes a few OCR records (each a few KB) and then refuses.
  if (std::system(
          ("mount -t tmpfs -o size=40k tmpfs " + shell_quote(disk.string()) + " 2>/dev/null")
              .c_str()) != 0) {
    DOCSIFT_SKIP("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
  }
  struct Unmount {
    fs::path at;
    ~Unmount() { (void)std::system(("umount " + shell_quote(at.string())).c_str()); }
  } unmount{disk};
  const fs::path out = disk / "out";
  // A stale summary from an earlier, finished run into the same folder must not survive this one.
  fs::create_directories(out);
  docsift::testing::write_text(out / "summary.json", "{\"images\": {\"ok\": 99}}\n");
  docsift::testing::write_text(out / "results.jsonl", "");
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) +
                             " --resume --quiet --out " + shell_quote(out.string()));
  CHECK(r.exit_code == 5);
  const std::string csv = file_bytes(out / "predictions.csv");
  REQUIRE_FALSE(csv.empty());
  CHECK(csv.back() == '\n');  // whole rows only
  const auto records = journal_lines(out / "results.jsonl");
  MESSAGE("the full disk stopped the run after " << records.size() << " records");
  REQUIRE(records.size() < 20);
  std::size_t ok = 0;
  for (const auto& record : records) ok += record["status"] == "ok" ? 1 : 0;
  CHECK(docsift::io::read_csv(out / "predictions.csv").rows.size() == ok);
  CHECK(r.err.find(std::to_string(records.size()) + " processed") != std::string::npos);
  if (fs::exists(out / "summary.json")) {  // written after all, or absent: never the stale one
    const auto summary = docsift::testing::read_summary(out / "summary.json");
    CHECK(summary["images"]["ok"].get<std::size_t>() +
              summary["images"]["failed"].get<std::size_t>() ==
          records.size());
  }
}

TEST_CASE(
    "scan and run: a link alias never replaces the real file's record, FIFOs, dangling links "
    "counted, names escaped in the log") {
  TempDir in, out;
  const fs::path sample = kSource / "samples" / "synthetic_invoice_001.png";
  fs::copy_file(sample, in.path() / "with space.png");
  fs::copy_file(sample, in.path() / "esc\x1b[31m.png");
  fs::create_symlink("with space.png", in.path() / "alias.png");  // sorts before its target
  fs::create_symlink("gone.png", in.path() / "dangling.png");
  REQUIRE(::mkfifo((in.path() / "pipe.png").c_str(), 0644) == 0);
  std::vector<docsift::io::SkippedFile> skipped;
  const auto images = docsift::io::scan_images(in.path(), false, &skipped);
  REQUIRE(images.size() == 2);
  CHECK(images[0].relative == "esc\x1b[31m.png");
  CHECK(images[1].relative == "with space.png");
  REQUIRE(skipped.size() == 3);
  CHECK(skipped[0].relative == "alias.png");
  CHECK(skipped[0].reason == "another name of with space.png");
  CHECK(skipped[1].relative == "dangling.png");
  CHECK(skipped[1].reason == "dangling link");
  CHECK(skipped[2].relative == "pipe.png");
  CHECK(skipped[2].reason == "not a regular file");

  const auto r =
      run_docsift("run " + shell_quote(in.path().string()) + kFast +
                  " --set generation.max_new_tokens=2 --out " + shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 2);
  CHECK(records[1]["file"] == "with space.png");
  CHECK(r.err.find("docsift: warning: skipped alias.png: another name of with space.png") !=
        std::string::npos);
  CHECK(r.err.find("docsift: warning: skipped pipe.png: not a regular file") != std::string::npos);
  CHECK(r.err.find("esc\\x1b[31m.png") != std::string::npos);  // escaped, never the raw escape byte
  CHECK(r.err.find('\x1b') == std::string::npos);
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["skipped_files"].size() == 3);
}

TEST_CASE(
    "file names that are not UTF-8 round-trip: one record each across resumes, CSV and eval "
    "agree") {
  TempDir in, out;
  const fs::path sample = kSource / "samples" / "synthetic_invoice_001.png";
  fs::copy_file(sample, in.path() / "lat\xe9.png");  // Latin-1 é and è: invalid as UTF-8
  fs::copy_file(sample, in.path() / "lat\xe8.png");
  const std::string args = "run " + shell_quote(in.path().string()) + kFast +
                           " --set generation.max_new_tokens=2 --out " +
                           shell_quote(out.path().string());
  REQUIRE(run_docsift(args).exit_code == 0);
  for (int i = 0; i < 2; ++i) {
    const auto again = run_docsift(args + " --resume");
    REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  }
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 2);
  CHECK(records[0]["file_bytes"] == "lat%E8.png");
  CHECK(records[1]["file_bytes"] == "lat%E9.png");
  CHECK(records[0]["file"] == "lat\xef\xbf\xbd.png");  // shown with U+FFFD
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["images"]["ok"] == 2);
  CHECK(summary["images"]["scanned"] == 2);
  const auto csv = docsift::io::read_csv(out.path() / "predictions.csv");
  REQUIRE(csv.rows.size() == 2);
  std::set<std::string> names{csv.rows[0][0], csv.rows[1][0]};
  CHECK(names == std::set<std::string>{"lat%E8.png", "lat%E9.png"});
  // A ground truth that names the files the same way is matched row for row.
  const auto truth = docsift::io::read_csv(kSource / "samples/ground_truth.csv");
  std::string gt;
  const auto append_row = [&gt](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) gt.push_back(',');
      gt.append(docsift::io::csv_field(cells[i]));
    }
    gt.push_back('\n');
  };
  append_row(truth.header);
  for (const std::string name : {"lat%E8.png", "lat%E9.png"}) {
    std::vector<std::string> row = truth.rows[0];
    row[0] = name;
    append_row(row);
  }
  write_bytes(out.path() / "gt.csv", gt);
  const auto eval =
      run_docsift("eval " + shell_quote((out.path() / "predictions.csv").string()) + " " +
                  shell_quote((out.path() / "gt.csv").string()) + " --fields " +
                  shell_quote((kSource / "configs/fields/business-documents.yaml").string()) +
                  " --report " + shell_quote((out.path() / "report.json").string()));
  REQUIRE_MESSAGE(eval.exit_code == 0, eval.err);
  const auto report = nlohmann::json::parse(file_bytes(out.path() / "report.json"));
  CHECK(report["images_scored"] == 2);
  CHECK(report["missing_predictions"].size() == 0);
}

TEST_CASE(
    "run with the Llama 3.2 Vision config on an Mllama checkpoint: the same outputs as for "
    "InternVL3") {
  TempDir out;
  // The shipped 11B config, with only the device and dtype changed for the CI machine.
  const auto r =
      run_docsift("run " + shell_quote((kSource / "samples").string()) + " --config " +
                  shell_quote((kSource / "configs/llama32-vision-11b.yaml").string()) +
                  " --model " + shell_quote((kSource / "tests/fixtures/mllama/hub").string()) +
                  " --device cpu --set model.dtype=float32 --set generation.max_new_tokens=8 --set "
                  "extraction.fields=" +
                  shell_quote((kSource / "configs/fields/business-documents.yaml").string()) +
                  " --out " + shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 20);
  for (const auto& rec : records) {
    CHECK(rec["status"] == "ok");
    CHECK(rec["fields"].size() == 25);
    CHECK(rec["tokens"]["generated"] == 8);
    CHECK(rec["model"]["quantization"] == "int8");  // the config's choice holds on the CPU too
    CHECK(rec["image"]["tiles"].get<int>() >= 1);
    CHECK(rec["image"]["tiles"].get<int>() <= 4);
  }
  const auto csv = docsift::io::read_csv(out.path() / "predictions.csv");
  CHECK(csv.header == docsift::io::read_csv(kSource / "samples/ground_truth.csv").header);
  CHECK(csv.rows.size() == 20);
  CHECK(docsift::testing::read_summary(out.path() / "summary.json")["images"]["ok"] == 20);
}

TEST_CASE(
    "run with the Qwen configs on the tiny Qwen2.5-VL and Qwen3-VL checkpoints, in process and as "
    "a "
    "worker: 20 ok records, the same CSV") {
  for (const auto& [config, model] :
       {std::pair{"configs/qwen25vl-7b.yaml", "tests/fixtures/qwen25vl/hub"},
        std::pair{"configs/qwen3vl-8b.yaml", "tests/fixtures/qwen3vl/hub"}}) {
    const std::string checkpoint = model;
    CAPTURE(checkpoint);
    std::string csv[2];
    int i = 0;
    for (const std::string isolate : {"none", "worker"}) {
      CAPTURE(isolate);
      TempDir out;
      const auto r = run_docsift(
          "run " + shell_quote((kSource / "samples").string()) + " --config " +
          shell_quote((kSource / config).string()) + " --model " +
          shell_quote((kSource / model).string()) +
          " --device cpu --set model.dtype=float32 --set generation.max_new_tokens=8 --isolate " +
          isolate + " --set extraction.fields=" +
          shell_quote((kSource / "configs/fields/business-documents.yaml").string()) + " --out " +
          shell_quote(out.path().string()));
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      const auto records = journal_lines(out.path() / "results.jsonl");
      REQUIRE(records.size() == 20);
      for (const auto& rec : records) {
        CHECK(rec["status"] == "ok");
        CHECK(rec["fields"].size() == 25);
        CHECK(rec["tokens"]["generated"].get<int>() <= 8);
        CHECK(rec["model"]["quantization"] == "int8");
      }
      CHECK(docsift::testing::read_summary(out.path() / "summary.json")["images"]["ok"] == 20);
      csv[i++] = file_bytes(out.path() / "predictions.csv");
    }
    CHECK(!csv[0].empty());
    CHECK(csv[0] == csv[1]);
  }
}

TEST_CASE(
    "run with extraction.tables asks a model for the tables: every invoice's and receipt's answer "
    "has its LINE_ITEMS line, read into rows or a warning, and the CSVs stay consistent") {
  TempDir out;
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                             " --set generation.max_new_tokens=auto --set extraction.tables=true "
                             "--limit 4 --quiet --out " +
                             shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 4);
  int asked = 0;
  for (const auto& rec : records) {
    CHECK(rec["status"] == "ok");
    const std::string type = rec["fields"]["DOCUMENT_TYPE"].get<std::string>();
    const std::string answer = rec["raw_response"].get<std::string>();
    const std::string key = type == "BANK STATEMENT" ? "\nTRANSACTIONS:" : "\nLINE_ITEMS:";
    CHECK(answer.find(key) != std::string::npos);  // keys decoding writes the table's key
    ++asked;
    // The tiny random model writes no JSON: no rows, and the reason in the record, unless it
    // wrote nothing at all (N/A).
    const bool rows = rec.contains("line_items") && !rec["line_items"].empty();
    const bool warned = rec.contains("warning") &&
                        rec["warning"].get<std::string>().find("no rows read") != std::string::npos;
    CHECK((rows || warned || answer.find(key + " N/A") != std::string::npos));
  }
  CHECK(asked == 4);
  CHECK(docsift::io::read_csv(out.path() / "predictions.csv").rows.size() == 4);
}

TEST_CASE(
    "run --metrics writes Prometheus text format, eval --junit writes JUnit XML with a case per "
    "field") {
  TempDir out;
  const fs::path metrics = out.path() / "docsift.prom";
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast +
                             " --set generation.max_new_tokens=8 --limit 3 --quiet --metrics " +
                             shell_quote(metrics.string()) + " --out " +
                             shell_quote((out.path() / "run").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Every line: a HELP or TYPE comment, or `name{label="value",...} number`; every sample's metric
  // has a TYPE line before it.
  const std::regex comment(R"(# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) .+)");
  const std::regex sample_line(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*")*\})? (-?[0-9.]+([eE][-+]?[0-9]+)?|NaN|[+-]Inf))");
  std::set<std::string> typed;
  std::map<std::string, double> samples;
  std::ifstream in(metrics);
  std::string line;
  while (std::getline(in, line)) {
    CAPTURE(line);
    std::smatch m;
    if (std::regex_match(line, m, comment)) {
      if (m[1] == "TYPE") typed.insert(m[2]);
      continue;
    }
    REQUIRE(std::regex_match(line, m, sample_line));
    CHECK(typed.count(m[1]) == 1);
    samples[line.substr(0, line.rfind(' '))] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  CHECK(samples["docsift_images{status=\"ok\"}"] == 3);
  CHECK(samples["docsift_images_by_tier{tier=\"standard\"}"] == 3);
  CHECK(samples["docsift_run_images"] == 3);
  CHECK(samples["docsift_run_stopped"] == 0);
  CHECK(samples["docsift_host_peak_rss_bytes"] > 0);

  // The tiny model's fields are noise: every case fails a 0.99 gate, and the XML says so.
  const fs::path junit = out.path() / "eval.xml";
  const auto e =
      run_docsift("eval " + shell_quote((out.path() / "run/predictions.csv").string()) + " " +
                  shell_quote((kSource / "samples/ground_truth.csv").string()) + " --fields " +
                  shell_quote((kSource / "configs/fields/business-documents.yaml").string()) +
                  " --min-accuracy 0.99 --junit " + shell_quote(junit.string()));
  CHECK(e.exit_code == 4);
  const std::string xml = file_bytes(junit);
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0) == 0);
  CHECK(xml.find("<testsuite name=\"docsift.eval\" tests=\"26\"") !=
        std::string::npos);  // 25 fields + overall
  CHECK(xml.find("<testcase classname=\"docsift.eval.field\" name=\"ABN\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"docsift.eval.overall\" name=\"overall\"") !=
        std::string::npos);
  CHECK(xml.find("is below --min-accuracy 0.9900") != std::string::npos);
  // Valid against the JUnit schema's required elements and attributes (xmllint, libxml2-utils);
  // the schema does reject a test case without its name.
  const std::string xsd = shell_quote((kSource / "tests/fixtures/junit/junit.xsd").string());
  const auto valid = docsift::testing::run_shell("xmllint --noout --schema " + xsd + " " +
                                                 shell_quote(junit.string()));
  CHECK_MESSAGE(valid.exit_code == 0, valid.err);
  std::string broken = xml;
  broken.replace(broken.find(" name=\"ABN\""), 11, "");
  docsift::testing::write_text(out.path() / "broken.xml", broken);
  CHECK(docsift::testing::run_shell("xmllint --noout --schema " + xsd + " " +
                                    shell_quote((out.path() / "broken.xml").string()))
            .exit_code != 0);
  // Balanced elements: as many closing tags as opening ones for each kind.
  for (const std::string tag : {"testsuites", "testsuite", "testcase", "failure", "system-out"}) {
    std::size_t open = 0, close = 0;
    for (auto p = xml.find("<" + tag + " "); p != std::string::npos;
         p = xml.find("<" + tag + " ", p + 1))
      ++open;
    for (auto p = xml.find("<" + tag + ">"); p != std::string::npos;
         p = xml.find("<" + tag + ">", p + 1))
      ++open;
    for (auto p = xml.find("</" + tag + ">"); p != std::string::npos;
         p = xml.find("</" + tag + ">", p + 1))
      ++close;
    CAPTURE(tag);
    CHECK(open == close);
    CHECK(open > 0);
  }
}

TEST_CASE(
    "run from another working directory (/) with absolute paths and the built-in field schema") {
  TempDir out;
  // No extraction.fields: the built-in schema. A cron job starts in $HOME, not in the checkout.
  const auto r =
      run_docsift("run " + shell_quote((kSource / "samples").string()) + " --model " + kModel +
                      " --device cpu --set model.dtype=float32 --set model.max_tiles=1 --set "
                      "generation.max_new_tokens=4 --limit 2 --quiet --out " +
                      shell_quote(out.path().string()),
                  "", "/");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(out.path() / "results.jsonl");
  REQUIRE(records.size() == 2);
  CHECK(records[0]["fields"].size() == 25);
}
