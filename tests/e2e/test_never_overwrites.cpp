// A command never writes over what it reads, never reads what it was not given, and reports a bad
// input the same way in every command (docs/cli.md, "Outputs"; docs/run.md, "Links"): the cases a
// hostile probe of the tool found, each of which failed before its fix.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "docsift/batch/ocr_reader.h"
#include "docsift/batch/output_folder.h"
#include "docsift/batch/run_stages.h"
#include "docsift/config/config.h"
#include "docsift/io/source.h"
#include "docsift/journal/lock.h"
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
const fs::path kPage = kSource / "samples" / "synthetic_invoice_001.png";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An inbox of one page and its run's output folder, made with the OCR engine.
struct OneRun {
  TempDir dir;
  fs::path inbox = dir / "inbox", out = dir / "out", truth = dir / "truth.csv";
  OneRun() {
    fs::create_directories(inbox);
    fs::copy_file(kPage, inbox / "a.png");
    write_text(truth, docsift::testing::samples_truth({{kPage.filename().string(), "a.png"}}));
    const CliResult r = run_docsift("run " + q(inbox) + " --quiet --out " + q(out));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
};

std::vector<std::string> files_under(const fs::path& dir, const std::string& ending) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (entry.path().string().ends_with(ending)) found.push_back(entry.path().string());
  }
  return found;
}

}  // namespace

TEST_CASE(
    "eval refuses an output that is PRED, GT or a run folder's own file, and touches nothing") {
  OneRun run;
  const fs::path pred = run.out / "predictions.csv";
  const std::string pred_before = file_bytes(pred), truth_before = file_bytes(run.truth),
                    journal_before = file_bytes(run.out / "results.jsonl");
  const std::string base = "eval " + q(pred) + " " + q(run.truth);
  for (const std::string& outputs :
       {"--junit " + q(pred), "--junit " + q(run.truth),
        "--target-accuracy 0.9 --write-thresholds " + q(pred),
        "--target-accuracy 0.9 --write-thresholds " + q(run.truth),
        "--junit " + q(run.out / "results.jsonl"),
        "--report " + q(run.dir / "same.json") + " --report " + q(run.dir / "same.json")}) {
    CAPTURE(outputs);
    const CliResult r = run_docsift(base + " " + outputs);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE((has(r.err, "nothing was written") || has(r.err, "two outputs")), r.err);
    CHECK(file_bytes(pred) == pred_before);
    CHECK(file_bytes(run.truth) == truth_before);
    CHECK(file_bytes(run.out / "results.jsonl") == journal_before);
  }
  // The same option at a path of its own still works (the refusal is of the path, not the option).
  CHECK(run_docsift(base + " --junit " + q(run.dir / "junit.xml")).exit_code == 0);
  CHECK(fs::exists(run.dir / "junit.xml"));
}

TEST_CASE("run --metrics refuses the run's own files and its inputs, also before the run starts") {
  OneRun run;
  const std::string journal = file_bytes(run.out / "results.jsonl"),
                    csv = file_bytes(run.out / "predictions.csv");
  for (const char* name : {"results.jsonl", "predictions.csv"}) {
    const CliResult r = run_docsift("run " + q(run.inbox) + " --quiet --resume --out " +
                                    q(run.out) + " --metrics " + q(run.out / name));
    CHECK_MESSAGE(r.exit_code == 2, r.err);
    CHECK(has(r.err, "own " + std::string(name)));
  }
  // A new folder: refused before it is made.
  const CliResult fresh =
      run_docsift("run " + q(run.inbox) + " --quiet --out " + q(run.dir / "new") + " --metrics " +
                  q(run.dir / "new" / "results.jsonl"));
  CHECK(fresh.exit_code == 2);
  CHECK_FALSE(fs::exists(run.dir / "new" / "results.jsonl"));
  // An input: the config file given.
  write_text(run.dir / "c.yaml", "review:\n  threshold: 0.5\n");
  const std::string config = file_bytes(run.dir / "c.yaml");
  CHECK(run_docsift("run " + q(run.inbox) + " --quiet --config " + q(run.dir / "c.yaml") +
                    " --out " + q(run.dir / "o2") + " --metrics " + q(run.dir / "c.yaml"))
            .exit_code == 2);
  CHECK(file_bytes(run.dir / "c.yaml") == config);
  // A run that would exit 7 before starting (a damaged journal) leaves it as it was.
  fs::create_directories(run.dir / "damaged");
  write_text(run.dir / "damaged" / "results.jsonl", "{not json\n");
  const CliResult damaged =
      run_docsift("run " + q(run.inbox) + " --quiet --resume --out " + q(run.dir / "damaged") +
                  " --metrics " + q(run.dir / "damaged" / "results.jsonl"));
  CHECK(damaged.exit_code == 2);
  CHECK(file_bytes(run.dir / "damaged" / "results.jsonl") == "{not json\n");
  CHECK(file_bytes(run.out / "results.jsonl") == journal);
  CHECK(file_bytes(run.out / "predictions.csv") == csv);
}

TEST_CASE(
    "the OCR engine reads a page through the opening the scan checked: a link swapped in since is "
    "not read") {
  TempDir dir;
  fs::create_directories(dir / "inbox");
  fs::create_directories(dir / "secret");
  fs::copy_file(kPage, dir / "inbox" / "a.png");
  fs::copy_file(kSource / "samples" / "synthetic_invoice_002.png", dir / "secret" / "payslip.png");
  const fs::path name = dir / "inbox" / "a.png", real = fs::canonical(name);
  docsift::config::Config config;
  docsift::batch::OcrReader reader(config);
  // Unchanged: read, and stamped with its hash.
  const auto stamp = docsift::io::stamp_file(name, /*with_hash=*/true, real);
  REQUIRE(stamp.has_value());
  CHECK(stamp->hash.has_value());
  CHECK(reader.read({name, real, 0, 1, nullptr, false}).record.ok());
  // Swapped for a link out of the inbox between the scan and the read (the scan resolved `real`).
  fs::remove(name);
  fs::create_symlink(dir / "secret" / "payslip.png", name);
  CHECK_FALSE(docsift::io::stamp_file(name, /*with_hash=*/true, real)
                  .has_value());  // not the outside file's size
  const auto outcome = reader.read({name, real, 0, 1, nullptr, false});
  CHECK_FALSE(outcome.record.ok());
  CHECK_MESSAGE(
      outcome.record.error.rfind(name.string() + ": is not the file the scan found there", 0) == 0,
      outcome.record.error);
  CHECK_FALSE(has(outcome.record.error, "/proc/"));
  CHECK_FALSE(outcome.record.fields.has_value());
}

TEST_CASE(
    "report shows a page only if it is the file the run read, never through a link out of the "
    "inbox") {
  OneRun run;
  CHECK(run_docsift("report " + q(run.out) + " --quiet --out " + q(run.dir / "r0")).exit_code == 0);
  CHECK(files_under(run.dir / "r0", ".jpg").size() == 1);  // the control: shown when unchanged

  fs::create_directories(run.dir / "secret");
  fs::copy_file(kSource / "samples" / "synthetic_invoice_002.png",
                run.dir / "secret" / "payslip.png");
  // A link put at the page's name after the run.
  fs::rename(run.inbox / "a.png", run.dir / "a.png");
  fs::create_symlink(run.dir / "secret" / "payslip.png", run.inbox / "a.png");
  CliResult r = run_docsift("report " + q(run.out) + " --out " + q(run.dir / "r1"));
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(files_under(run.dir / "r1", ".jpg").empty());
  CHECK(has(r.err, "leads out of the folder"));
  // Another file (not a link) at the name: its size and hash are not the record's.
  fs::remove(run.inbox / "a.png");
  fs::copy_file(kSource / "samples" / "synthetic_invoice_002.png", run.inbox / "a.png");
  r = run_docsift("report " + q(run.out) + " --out " + q(run.dir / "r2"));
  CHECK(files_under(run.dir / "r2", ".jpg").empty());
  CHECK(has(r.err, "is not the page the run read"));
  // A record edited to name a file outside the run's inputs.
  nlohmann::json record = nlohmann::json::parse(file_bytes(run.out / "results.jsonl"));
  record["file"] = (run.dir / "secret" / "payslip.png").string();
  record.erase("file_bytes");
  write_text(run.out / "results.jsonl", record.dump() + "\n");
  r = run_docsift("report " + q(run.out) + " --out " + q(run.dir / "r3"));
  CHECK(files_under(run.dir / "r3", ".jpg").empty());
  CHECK(has(r.err, "not one of the run's inputs"));
}

TEST_CASE(
    "a malformed journal record is exit 7 naming file:line in run --resume, merge, report and eval "
    "alike") {
  OneRun run;
  const nlohmann::json good = nlohmann::json::parse(file_bytes(run.out / "results.jsonl"));
  REQUIRE(good["confidence"].contains("TOTAL"));
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> damage{
      {"a confidence that is text", [](nlohmann::json& j) { j["confidence"]["TOTAL"] = "x"; }},
      {"a confidence over 1", [](nlohmann::json& j) { j["confidence"]["TOTAL"] = 1.5; }},
      {"a box of three numbers",
       [](nlohmann::json& j) {
         j["boxes"]["TOTAL"] = {1, 2, 3};
       }},
      {"a review that is not a list", [](nlohmann::json& j) { j["review"] = "TOTAL"; }},
  };
  const fs::path journal = run.out / "results.jsonl";
  for (const auto& [what, edit] : damage) {
    CAPTURE(what);
    nlohmann::json bad = good;
    edit(bad);
    write_text(journal, good.dump() + "\n" + bad.dump() + "\n");
    for (const std::string& command :
         {"run " + q(run.inbox) + " --quiet --resume --out " + q(run.out),
          "merge " + q(run.out) + " --quiet --out " + q(run.dir / "m"),
          "report " + q(run.out) + " --quiet --out " + q(run.dir / "r"),
          "eval " + q(journal) + " " + q(run.truth)}) {
      CAPTURE(command);
      const CliResult r = run_docsift(command);
      CHECK_MESSAGE(r.exit_code == 7, r.err);
      CHECK_MESSAGE(has(r.err, journal.string() + ":2: "), r.err);
    }
  }
}

TEST_CASE(
    "the OCR engine never asks for a device, isolated or not, and a missing model folder is named "
    "as missing") {
  OneRun run;
  CliResult r = run_docsift("run " + q(run.inbox) + " --quiet --isolate worker --out " +
                            q(run.dir / "isolated"));
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  r = run_docsift("run " + q(run.inbox) + " --quiet --model " + q(run.dir / "no-such-model") +
                  " --out " + q(run.dir / "m"));
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(has(r.err, "no-such-model: no such folder"), r.err);
  CHECK_FALSE(has(r.err, "not usable"));
}

TEST_CASE(
    "settings that name fields are checked against the schema from any source, calibration files "
    "at file:line:col") {
  TempDir dir;
  write_text(dir / "t.yaml", "review:\n  fields: {TOTALL: 0.5}\n");
  CliResult r = run_docsift("config --config " + q(dir / "t.yaml"));
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(has(r.err, "review.fields: 'TOTALL' is not a field"), r.err);
  r = run_docsift("config --set 'review.fields={TOTALL: 0.5}'");
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "'TOTALL' is not a field"));
  write_text(dir / "g.yaml", "gate:\n  min_field: {TOTALL: 0.5}\n");
  CHECK(run_docsift("config --config " + q(dir / "g.yaml")).exit_code == 2);
  // The shipped thresholds of the schema's own fields are accepted as before.
  write_text(dir / "ok.yaml", "review:\n  fields: {TOTAL: 0.9, SUPPLIER: 0.8}\n");
  CHECK(run_docsift("config --config " + q(dir / "ok.yaml")).exit_code == 0);

  fs::create_directories(dir / "inbox");
  fs::copy_file(kPage, dir / "inbox" / "a.png");
  const std::string text = "  text: {intercept: 0.5, weights: {word_mean: 1.0}}\n";
  for (const auto& [yaml, expected] : std::vector<std::pair<std::string, std::string>>{
           {"kinds:\n" + text + text, "c.yaml:3:3: kinds.text: given twice"},
           {"kinds:\n" + text + "fields: {TOTALL: text}\n",
            "c.yaml:3:18: fields.TOTALL: not a field of the schema"},
           {"kinds:\n  text: {intercept: nan, weights: {}}\n",
            "c.yaml:2:21: kinds.text.intercept: expected a finite number, got 'nan'"},
           {"kinds:\n  text: {weights: {}}\n", "c.yaml:2:9: kinds.text: has no intercept"},
       }) {
    CAPTURE(yaml);
    write_text(dir / "c.yaml", yaml);
    r = run_docsift("run " + q(dir / "inbox") + " --quiet --set ocr.calibration=" +
                    q(dir / "c.yaml") + " --out " + q(dir / "o"));
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(has(r.err, (dir / expected).string()), r.err);
  }
}

TEST_CASE(
    "report: a full disk is exit 5 with no temporary left, and a run in progress is refused") {
  OneRun run;
  const CliResult r =
      run_docsift("report " + q(run.out) + " --quiet --out " + q(run.dir / "r5"), "ulimit -f 16;");
  CHECK_MESSAGE(r.exit_code == 5, r.err);
  CHECK(files_under(run.dir / "r5", ".tmp").empty());
  CHECK(run_docsift("report " + q(run.out) + " --quiet --out " + q(run.dir / "r5")).exit_code ==
        0);  // again: whole
  {
    const docsift::journal::OutputLock writing(run.out, "run");
    const CliResult locked =
        run_docsift("report " + q(run.out) + " --quiet --out " + q(run.dir / "r6"));
    CHECK(locked.exit_code == 3);
    CHECK_MESSAGE(has(locked.err, "is still writing here"), locked.err);
  }
}

TEST_CASE(
    "shards: a shard without summary.json is unfinished, not missing, and --out at the shard's "
    "folder is not nested") {
  TempDir dir;
  fs::create_directories(dir / "inbox");
  for (const char* n : {"001", "002", "003", "004"}) {
    fs::copy_file(kSource / "samples" / ("synthetic_invoice_" + std::string(n) + ".png"),
                  dir / "inbox" / (std::string(n) + ".png"));
  }
  for (const char* shard : {"1/2", "2/2"}) {
    const CliResult r = run_docsift("run " + q(dir / "inbox") + " --quiet --allow-empty --shard " +
                                    shard + " --out " + q(dir / "s"));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  fs::remove(dir / "s" / "shard-2-of-2" / "summary.json");
  const CliResult merged =
      run_docsift("merge " + q(dir / "s" / "shard-1-of-2") + " " + q(dir / "s" / "shard-2-of-2") +
                  " --quiet --out " + q(dir / "m"));
  CHECK(merged.exit_code == 1);
  CHECK_MESSAGE(has(merged.err, "shard-2-of-2: no summary.json"), merged.err);
  CHECK_FALSE(has(merged.err, "is not among the folders"));
  // The shard run again by hand with its own folder as --out: resumed there.
  const CliResult again =
      run_docsift("run " + q(dir / "inbox") + " --quiet --allow-empty --resume --shard 2/2 --out " +
                  q(dir / "s" / "shard-2-of-2"));
  CHECK_MESSAGE(again.exit_code == 0, again.err);
  CHECK(fs::exists(dir / "s" / "shard-2-of-2" / "summary.json"));
  CHECK_FALSE(fs::exists(dir / "s" / "shard-2-of-2" / "shard-2-of-2"));
}

TEST_CASE(
    "the config hash covers the content of the files it names: a sellers list edited between runs "
    "is a change") {
  OneRun run;
  write_text(run.dir / "sellers.txt", "ACME PTY LTD\n");
  const std::string with_list = "run " + q(run.inbox) +
                                " --quiet --set ocr.known_sellers=" + q(run.dir / "sellers.txt") +
                                " --out " + q(run.dir / "h");
  REQUIRE(run_docsift(with_list).exit_code == 0);
  CHECK(run_docsift(with_list + " --resume").exit_code == 0);  // unchanged: resumes
  write_text(run.dir / "sellers.txt", "ACME PTY LTD\nOTHER PTY LTD\n");
  const CliResult r = run_docsift(with_list + " --resume");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(has(r.err, "another configuration"), r.err);
}

TEST_CASE(
    "an error naming a hostile column shows its NUL and line separator escaped, on one line") {
  OneRun run;
  const char kHostile[] = "image_file,TO\0TAL\xe2\x80\xa8X\na.png,1\n";
  write_text(run.dir / "p.csv", std::string(kHostile, sizeof kHostile - 1));
  const CliResult r = run_docsift("eval " + q(run.dir / "p.csv") + " " + q(run.truth));
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(has(r.err, "TO\\x00TAL\\u2028X"), r.err);
  CHECK_FALSE(has(r.err, "\xe2\x80\xa8"));
}

TEST_CASE(
    "a page's record reaches the journal before its CSV rows: a row that cannot be written leaves "
    "the CSV a prefix") {
  // In a child process, so that the file-size limit (a full disk's stand-in) is its own: the
  // journal's line fits under it, the CSV row appended after the header does not.
  TempDir dir;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int code = 1;
    try {
      ::signal(SIGXFSZ, SIG_IGN);
      const docsift::config::Config cfg;
      docsift::batch::RunOptions options;
      options.out_dir = dir / "out";
      const docsift::batch::OutputFolder folder(options.out_dir, "run");
      docsift::batch::RunOutputs outputs = docsift::batch::open_outputs(folder, cfg, options);
      docsift::batch::Record record;
      record.status = docsift::batch::Record::Status::Ok;
      record.file = "a.png";
      record.tier = "ocr";
      record.fields = std::map<std::string, std::string>{{"TOTAL", "1.00"}};
      record.tokens = docsift::batch::Record::Tokens{0, 0, 0};
      record.memory = nlohmann::json::object();
      const std::uint64_t header = fs::file_size(options.out_dir / "predictions.csv");
      const rlimit limit{header + 8, header + 8};
      if (record.to_json().dump().size() + 1 < header + 8 &&
          ::setrlimit(RLIMIT_FSIZE, &limit) == 0) {
        const auto written =
            docsift::batch::write_page(record, docsift::batch::record_name("a.png"), outputs);
        const bool journaled =
            file_bytes(options.out_dir / "results.jsonl").find("\"a.png\"") != std::string::npos;
        const bool csv_prefix = fs::file_size(options.out_dir / "predictions.csv") == header;
        code = written.journaled &&
                       written.stopped.find("is journaled, its CSV row left for --resume") !=
                           std::string::npos &&
                       journaled && csv_prefix
                   ? 0
                   : 2;
      }
    } catch (...) {
      code = 3;
    }
    std::_Exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK_MESSAGE(WEXITSTATUS(status) == 0,
                "the child's check: 1 no limit set, 2 the order or the files wrong, 3 threw");
}
