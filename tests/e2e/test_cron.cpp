// A nightly job as cron runs it: failed pages retried once their file is fixed, changed files
// redone, an empty inbox noticed, every stderr line parseable, timestamps, the metrics file
// written whatever happens, typos answered, and inputs given as people give them. And every count
// and exit code tells the truth: a failed page deleted is gone once, a permission fault is never
// an empty night, a run that ran says how it ended, a bad carried-over metric is
// dropped, a lock file docsift did not write is named. The OCR engine reads the pages: no
// weights, a fraction of a second each.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/log_lines.h"
#include "support/skip.h"
#include "support/summary_json.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::run_shell;
using docsift::testing::TempDir;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kSamples = kSource / "samples";

// A PNG cut short: libpng says "PNG input buffer is incomplete" and the page fails.
void write_truncated_png(const fs::path& to) {
  const std::string bytes = file_bytes(kSamples / "synthetic_invoice_003.png");
  std::ofstream(to, std::ios::binary) << bytes.substr(0, 3000);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The CSV's rows by image_file (the header left out).
std::map<std::string, std::string> csv_rows(const fs::path& csv) {
  std::map<std::string, std::string> rows;
  const auto lines = lines_of(file_bytes(csv));
  for (std::size_t i = 1; i < lines.size(); ++i)
    rows[lines[i].substr(0, lines[i].find(','))] = lines[i];
  return rows;
}

std::map<std::string, double> metric_samples(const fs::path& file) {
  std::map<std::string, double> samples;
  for (const std::string& line : lines_of(file_bytes(file))) {
    if (line.empty() || line[0] == '#') continue;
    samples[line.substr(0, line.rfind(' '))] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  return samples;
}

// The README's crontab line, with its paths swapped for the test's.
std::string readme_cron_line() {
  for (const std::string& line : lines_of(file_bytes(kSource / "README.md"))) {
    if (line.starts_with("0 2 * * * ")) return line.substr(10);
  }
  return "";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The README's crontab line as a shell command over the test's folders: `dir`/inbox, results,
// docsift.prom (the metrics) and docsift.log (stdout and stderr appended, as cron's redirection).
std::string cron_command(const fs::path& dir) {
  std::string line = readme_cron_line();
  REQUIRE_MESSAGE(!line.empty(), "README.md has no line starting with '0 2 * * * '");
  line = replace_all(line, "/opt/docsift/bin/docsift", DOCSIFT_BIN);
  line = replace_all(line, "/srv/scans/inbox", (dir / "inbox").string());
  line = replace_all(line, "/srv/scans/results", (dir / "results").string());
  line = replace_all(line, "/var/lib/node_exporter/textfile/docsift.prom",
                     (dir / "docsift.prom").string());
  line = replace_all(line, "/var/log/docsift.log", (dir / "docsift.log").string());
  return line;
}

// How many lines of `text` contain `needle`.
std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (const std::string& line : lines_of(text))
    n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

// The prefix that runs a command as nobody when the tests run as root (root reads any file, so a
// permission fault needs another user); "" otherwise. setpriv is util-linux's.
std::string as_another_user() {
  return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

// Whether a command started with as_another_user() did not run as that user: no setpriv, or no
// right to change user (a container without CAP_SETUID).
bool another_user_unavailable(const docsift::testing::CliResult& r) {
  return r.exit_code == 126 || r.exit_code == 127 || r.err.find("setpriv: ") != std::string::npos;
}

const std::regex kRfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");

}  // namespace

TEST_CASE(
    "the README's cron line recovers from a broken file fixed between two nights: exit 0, the page "
    "in the CSV") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", results = dir / "results", prom = dir / "docsift.prom",
                 log = dir / "docsift.log";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  write_truncated_png(inbox / "broken.png");
  std::string line = readme_cron_line();
  REQUIRE_MESSAGE(!line.empty(), "README.md has no line starting with '0 2 * * * '");
  line = replace_all(line, "/opt/docsift/bin/docsift", DOCSIFT_BIN);
  line = replace_all(line, "/srv/scans/inbox", inbox.string());
  line = replace_all(line, "/srv/scans/results", results.string());
  line = replace_all(line, "/var/lib/node_exporter/textfile/docsift.prom", prom.string());
  line = replace_all(line, "/var/log/docsift.log", log.string());
  CAPTURE(line);

  // Night 1: the broken page fails, named in the log with what libpng said.
  const auto night1 = run_shell(line);
  CHECK(night1.exit_code == 1);
  const std::string log1 = file_bytes(log);
  CHECK(log1.find("broken.png") != std::string::npos);
  CHECK(log1.find("PNG input buffer is incomplete") != std::string::npos);
  for (const std::string& l : lines_of(log1)) {
    CAPTURE(l);
    CHECK(docsift::testing::log_body(l).starts_with(
        "docsift: "));  // nothing a decoder printed by itself
  }
  CHECK(csv_rows(results / "predictions.csv").count("broken.png") == 0);
  auto m = metric_samples(prom);
  CHECK(m["docsift_run_exit_code"] == 1);
  CHECK(m["docsift_images{status=\"failed\"}"] == 1);

  // The file is restored; night 2 retries it by itself.
  fs::copy_file(kSamples / "synthetic_invoice_003.png", inbox / "broken.png",
                fs::copy_options::overwrite_existing);
  const auto night2 = run_shell(line);
  CHECK(night2.exit_code == 0);
  CHECK(csv_rows(results / "predictions.csv").count("broken.png") == 1);
  CHECK(csv_rows(results / "predictions.csv").count("a.png") == 1);
  // The journal keeps the history: the failed record, then the one that supersedes it.
  std::vector<std::string> broken_status;
  for (const auto& r : journal_lines(results / "results.jsonl")) {
    if (r["file"] == "broken.png") broken_status.push_back(r["status"]);
  }
  CHECK(broken_status == std::vector<std::string>{"failed", "ok"});
  const auto summary = docsift::testing::read_summary(results / "summary.json");
  CHECK(summary["images"]["failed"] == 0);
  CHECK(summary["images"]["ok"] == 2);
  CHECK(summary["images"]["retried"] == 1);
  CHECK(summary["failed_files"]["count"] == 0);
  m = metric_samples(prom);
  CHECK(m["docsift_run_exit_code"] == 0);
  CHECK(m["docsift_images{status=\"failed\"}"] == 0);
  CHECK(m["docsift_last_success_timestamp_seconds"] == m["docsift_last_run_timestamp_seconds"]);

  // merge takes the latest record of each page too: one each, the retried one ok.
  const auto merged = run_docsift("merge " + q(results) + " --out " + q(dir / "merged"));
  CHECK_MESSAGE(merged.exit_code == 0, merged.err);
  const auto merged_records = journal_lines(dir / "merged" / "results.jsonl");
  CHECK(merged_records.size() == 2);
  for (const auto& r : merged_records) CHECK(r["status"] == "ok");
}

TEST_CASE(
    "--resume redoes a file that changed under the same name, not one only touched, and "
    "--resume-by-name keeps it") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", out = dir / "out";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "scan.png");
  fs::copy_file(kSamples / "synthetic_invoice_004.png", inbox / "other.png");
  const std::string run = "run " + q(inbox) + " --out " + q(out) + " --resume";
  REQUIRE(run_docsift(run).exit_code == 0);
  const std::string first_row = csv_rows(out / "predictions.csv")["scan.png"];
  REQUIRE(first_row.find("Harbour Office Supplies") != std::string::npos);
  const auto first = journal_lines(out / "results.jsonl");
  REQUIRE(first.size() == 2);
  CHECK(first[1]["source"]["size"] == fs::file_size(inbox / "scan.png"));
  CHECK(first[1]["source"]["hash"].get<std::string>().starts_with("fnv1a64:"));

  // Touched only (a copy again with a new time): the same bytes are not redone.
  const fs::file_time_type later = fs::last_write_time(inbox / "scan.png") + std::chrono::hours(1);
  fs::last_write_time(inbox / "scan.png", later);
  auto r = run_docsift(run);
  CHECK(r.exit_code == 0);
  CHECK(journal_lines(out / "results.jsonl").size() == 2);

  // Rewritten with another document: redone, with the reason in the log, and its old row replaced.
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "scan.png",
                fs::copy_options::overwrite_existing);
  CHECK(run_docsift(run + " --resume-by-name").exit_code == 0);
  CHECK(journal_lines(out / "results.jsonl").size() == 2);  // by name: kept
  r = run_docsift(run);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("reading scan.png again: changed since its record: size") != std::string::npos);
  const auto records = journal_lines(out / "results.jsonl");
  CHECK(records.size() == 3);
  const auto rows = csv_rows(out / "predictions.csv");
  CHECK(rows.size() == 2);
  CHECK(rows.at("scan.png") != first_row);
  CHECK(rows.at("scan.png").find("Eucalypt IT Services") != std::string::npos);
  const auto summary = docsift::testing::read_summary(out / "summary.json");
  CHECK(summary["images"]["changed"] == 1);
  CHECK(summary["images"]["ok"] == 2);
}

TEST_CASE(
    "an empty inbox exits 6 and says so, pages only in subfolders name -r, --allow-empty exits 0") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", prom = dir / "m.prom";
  fs::create_directories(inbox / "2026" / "11");
  auto r =
      run_docsift("run " + q(inbox) + " --out " + q(dir / "out") + " --quiet --metrics " + q(prom));
  CHECK(r.exit_code == 6);
  CHECK(r.err.find("docsift: error: no pages found in " + inbox.string()) != std::string::npos);
  CHECK(metric_samples(prom)["docsift_run_exit_code"] == 6);
  // No success known: 0, on which "no success for two days" fires (an absent gauge would not).
  CHECK(metric_samples(prom).at("docsift_last_success_timestamp_seconds") == 0);

  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "2026" / "11" / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "2026" / "b.png");
  r = run_docsift("run " + q(inbox) + " --out " + q(dir / "out2") + " --quiet");
  CHECK(r.exit_code == 6);
  CHECK(r.err.find("2 in subfolders, which are read only with -r (--recursive)") !=
        std::string::npos);
  CHECK(run_docsift("run " + q(inbox) + " -r --out " + q(dir / "out3") + " --quiet").exit_code ==
        0);
  CHECK(run_docsift("run " + q(inbox) + " --allow-empty --out " + q(dir / "out4") + " --quiet")
            .exit_code == 0);
}

TEST_CASE(
    "--log-format json: every stderr line is a JSON object with time, level and event, the errors "
    "included") {
  TempDir dir;
  const fs::path inbox = dir / "inbox";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  write_truncated_png(inbox / "broken.png");
  fs::create_symlink(dir / "gone.png", inbox / "dangling.png");
  const auto check_all_json = [](const std::string& err) {
    std::vector<nlohmann::json> events;
    for (const std::string& line : lines_of(err)) {
      CAPTURE(line);
      REQUIRE(nlohmann::json::accept(line));
      const auto j = nlohmann::json::parse(line);
      CHECK(std::regex_match(j["time"].get<std::string>(), kRfc3339));
      CHECK(j.contains("level"));
      CHECK(j.contains("event"));
      CHECK(j["message"].is_string());
      events.push_back(j);
    }
    return events;
  };
  const auto r = run_docsift("run " + q(inbox) + " --out " + q(dir / "out") + " --log-format json");
  CHECK(r.exit_code == 1);
  std::map<std::string, int> kinds;
  for (const auto& j : check_all_json(r.err)) {
    ++kinds[j["event"].get<std::string>()];
    if (j["event"] == "image" && j["file"] == "broken.png") {
      CHECK(j["level"] == "error");
      CHECK(j["error"].get<std::string>().find("libpng error: PNG input buffer is incomplete") !=
            std::string::npos);
    }
    if (j["event"] == "summary") CHECK(j["exit_code"] == 1);
  }
  CHECK(kinds["engine"] == 1);  // the "no --model given" notice
  CHECK(kinds["image"] == 2);
  CHECK(kinds["skipped"] == 1);  // the dangling link
  CHECK(kinds["summary"] == 1);  // the closing line
  // A usage error and a run that cannot start are JSON too.
  for (const std::string& args : {std::string("run --log-format json --limit 0 ") + q(inbox),
                                  std::string("run --log-format json ") + q(dir / "absent")}) {
    const auto bad = run_docsift(args);
    CHECK(bad.exit_code == 2);
    const auto events = check_all_json(bad.err);
    REQUIRE(events.size() == 1);
    CHECK(events[0]["level"] == "error");
    CHECK(events[0]["exit_code"] == 2);
  }
}

TEST_CASE("--log-format json is taken by every command, and its errors and gate lines are JSON") {
  TempDir dir;
  const fs::path pred = dir / "predictions.csv";
  docsift::testing::write_text(pred, "image_file,TOTAL\nsynthetic_invoice_001.png,$1.00\n");
  const fs::path truth = dir / "truth.csv";
  docsift::testing::write_text(truth, "image_file,TOTAL\nsynthetic_invoice_001.png,$2.00\n");
  // eval's gate fails: exit 4, and the failure is one JSON line with its exit code.
  const auto gate =
      run_docsift("eval " + q(pred) + " " + q(truth) + " --min-accuracy 1 --log-format json");
  CHECK(gate.exit_code == 4);
  bool gate_line = false;
  for (const std::string& line : lines_of(gate.err)) {
    CAPTURE(line);
    REQUIRE(nlohmann::json::accept(line));
    const auto j = nlohmann::json::parse(line);
    if (j["event"] == "gate") gate_line = j["exit_code"] == 4 && j["level"] == "error";
  }
  CHECK(gate_line);
  // A usage error of a nested command is JSON too and names the command in full.
  for (const char* args : {"review apply --log-format json", "report --log-format json",
                           "merge --log-format json", "config --log-format json --frobnicate"}) {
    CAPTURE(args);
    const auto bad = run_docsift(args);
    CHECK(bad.exit_code == 2);
    const auto lines = lines_of(bad.err);
    REQUIRE(lines.size() == 1);
    REQUIRE(nlohmann::json::accept(lines[0]));
    CHECK(nlohmann::json::parse(lines[0])["exit_code"] == 2);
  }
  // merge's own lines too (its closing line), not only its usage errors.
  const auto run = run_docsift("run " + q(kSamples / "synthetic_invoice_001.png") + " --out " +
                               q(dir / "run") + " --quiet");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto merged =
      run_docsift("merge " + q(dir / "run") + " --out " + q(dir / "merged") + " --log-format json");
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  const auto merge_lines = lines_of(merged.err);
  REQUIRE_FALSE(merge_lines.empty());
  for (const std::string& line : merge_lines) {
    CAPTURE(line);
    REQUIRE(nlohmann::json::accept(line));
  }
  const auto nested = run_docsift("review apply --log-format json");
  CHECK(nested.err.find("`docsift review apply --help`") != std::string::npos);
  CHECK(run_docsift("eval " + q(pred) + " " + q(truth) + " --log-format xml").exit_code == 2);
}

TEST_CASE("records, events and summary.json carry RFC 3339 UTC timestamps, in order") {
  TempDir dir;
  const auto r =
      run_docsift("run " + q(kSamples) + " --limit 4 --out " + q(dir / "out") + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Pages are read two at a time (ocr.threads), so one may begin before the page ahead of it is
  // written: each page begins after the one before it and is written after it.
  std::string previous, previous_start;
  for (const auto& record : journal_lines(dir / "out" / "results.jsonl")) {
    const std::string started = record["started_at"], finished = record["finished_at"];
    CHECK(std::regex_match(started, kRfc3339));
    CHECK(std::regex_match(finished, kRfc3339));
    CHECK(started <= finished);  // RFC 3339 UTC with fixed digits sorts as text in time order
    CHECK(previous_start <= started);
    CHECK(previous <= finished);
    previous_start = started;
    previous = finished;
  }
  const auto summary = docsift::testing::read_summary(dir / "out" / "summary.json");
  CHECK(summary["started_at"].get<std::string>() <=
        journal_lines(dir / "out" / "results.jsonl")[0]["started_at"]);
  CHECK(previous <= summary["finished_at"].get<std::string>());
  CHECK(summary["docsift_version"] == "0.1.0");
  CHECK(summary["inputs"] == nlohmann::json::array({kSamples.string()}));
  CHECK(summary["memory_high_water"]["host_peak_rss"].is_number_integer());
}

TEST_CASE("the metrics file: exit code and last success, also written when the run cannot start") {
  TempDir dir;
  const fs::path prom = dir / "m.prom";
  fs::create_directories(dir / "inbox");
  fs::copy_file(kSamples / "synthetic_invoice_001.png", dir / "inbox" / "a.png");
  REQUIRE(run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") +
                      " --quiet --metrics " + q(prom))
              .exit_code == 0);
  const auto good = metric_samples(prom);
  CHECK(good.at("docsift_run_exit_code") == 0);
  const double success = good.at("docsift_last_success_timestamp_seconds");
  CHECK(success > 1.7e9);
  // Cannot start: the journal is there and --resume is not given (exit 3); the file is written,
  // the last success kept from the file it replaces.
  const auto r = run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") +
                             " --quiet --metrics " + q(prom));
  CHECK(r.exit_code == 3);
  const auto failed = metric_samples(prom);
  CHECK(failed.at("docsift_run_exit_code") == 3);
  CHECK(failed.at("docsift_last_success_timestamp_seconds") == success);
  CHECK(failed.at("docsift_last_run_timestamp_seconds") >= success);
  CHECK(failed.count("docsift_images{status=\"ok\"}") ==
        0);  // nothing is known of a run that did not start
  // A usage error after parsing (an input that is not there) writes it too.
  CHECK(run_docsift("run " + q(dir / "absent") + " --quiet --metrics " + q(prom)).exit_code == 2);
  CHECK(metric_samples(prom).at("docsift_run_exit_code") == 2);
}

TEST_CASE(
    "typos get one line with the nearest command or option, ranges read as written, ignored "
    "options are said") {
  const auto one_line = [](const std::string& err) { return docsift::testing::one_log_line(err); };
  auto r = run_docsift("rnu samples/");
  CHECK(r.exit_code == 2);
  CHECK(one_line(r.err));
  CHECK(r.err.find("unknown command 'rnu' (did you mean run?)") != std::string::npos);
  r = run_docsift("run " + q(kSamples) + " --resum");
  CHECK(r.exit_code == 2);
  CHECK(one_line(r.err));
  CHECK(r.err.find("unknown option --resum (did you mean --resume?)") != std::string::npos);
  r = run_docsift("run " + q(kSamples) + " --limit 0");
  CHECK(r.exit_code == 2);
  CHECK(one_line(r.err));
  CHECK(r.err.find("--limit: must be 1 or more, not 0") != std::string::npos);
  r = run_docsift("run " + q(kSamples / "absent"));
  CHECK(r.exit_code == 2);
  CHECK(one_line(r.err));
  TempDir dir;
  r = run_docsift("run " + q(kSamples / "synthetic_invoice_001.png") + " --device cuda --out " +
                  q(dir / "out"));
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("docsift: warning: --device cuda is ignored: the OCR engine runs on the CPU") !=
        std::string::npos);
}

TEST_CASE(
    "inputs as people give them: folders and files mixed, --files-from - and -0, one identity "
    "each") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", extra = dir / "extra";
  fs::create_directories(inbox);
  fs::create_directories(extra);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_003.png", extra / "b.png");
  fs::copy_file(kSamples / "synthetic_invoice_004.png", extra / "a.png");

  // A folder and a file: the folder's pages by their path in it, the file by its path as given.
  auto r = run_shell("cd " + q(dir.path()) + " && " + DOCSIFT_BIN +
                     " run inbox ./extra/b.png --out out --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> files;
  for (const auto& rec : journal_lines(dir / "out" / "results.jsonl")) files.push_back(rec["file"]);
  CHECK(files == std::vector<std::string>{"a.png", "extra/b.png"});
  // Again with --resume: the same identities, nothing redone.
  r = run_shell("cd " + q(dir.path()) + " && " + DOCSIFT_BIN +
                " run inbox extra/b.png --out out --resume");
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("0 processed (0 ok, 0 failed), 2 already done") != std::string::npos);

  // Two folders that both hold a.png cannot share one journal: said before anything runs.
  r = run_docsift("run " + q(inbox) + " " + q(extra) + " --out " + q(dir / "clash"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("would both be \"a.png\" in the journal") != std::string::npos);

  // --files-from -: one path a line; a listed path that is gone is skipped and said.
  r = run_shell("cd " + q(dir.path()) +
                " && printf 'inbox/a.png\\nextra/b.png\\n\\nextra/gone.png\\n' | " + DOCSIFT_BIN +
                " run --files-from - --out listed --quiet");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("skipped extra/gone.png: not there") != std::string::npos);
  files.clear();
  for (const auto& rec : journal_lines(dir / "listed" / "results.jsonl"))
    files.push_back(rec["file"]);
  CHECK(files == std::vector<std::string>{"extra/b.png", "inbox/a.png"});
  // -0: NUL-separated, as find -print0 writes.
  r = run_shell("cd " + q(dir.path()) + " && find extra -name '*.png' -print0 | " + DOCSIFT_BIN +
                " run --files-from - -0 --out nul --quiet");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(dir / "nul" / "results.jsonl").size() == 2);
}

TEST_CASE(
    "the README's cron line over three nights: a failed page deleted is gone once, then history, "
    "and the counts add up") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", results = dir / "results", prom = dir / "docsift.prom",
                 log = dir / "docsift.log";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  write_truncated_png(inbox / "broken.png");
  const std::string line = cron_command(dir.path());
  CAPTURE(line);

  // Night 1: broken.png fails.
  CHECK(run_shell(line).exit_code == 1);
  auto summary = docsift::testing::read_summary(results / "summary.json");
  CHECK(summary["images"]["failed"] == 1);
  CHECK(summary["images"]["gone"] == 0);
  CHECK(metric_samples(prom).at("docsift_images{status=\"failed\"}") == 1);
  std::size_t log_lines = lines_of(file_bytes(log)).size();

  // Night 2: it was deleted during the day. Said once, even under --quiet; the failed set is empty.
  fs::remove(inbox / "broken.png");
  CHECK(run_shell(line).exit_code == 0);
  summary = docsift::testing::read_summary(results / "summary.json");
  CHECK(summary["images"]["failed"] == 0);
  CHECK(summary["images"]["gone"] == 1);
  CHECK(summary["images"]["ok"] == 1);
  CHECK(summary["images"]["pages"] == 2);  // a.png, and broken.png said gone
  CHECK(summary["failed_files"]["count"] == 0);
  auto m = metric_samples(prom);
  CHECK(m.at("docsift_run_exit_code") == 0);
  CHECK(m.at("docsift_images{status=\"failed\"}") == 0);
  CHECK(m.at("docsift_run_gone_images") == 1);
  CHECK(m.at("docsift_last_success_timestamp_seconds") ==
        m.at("docsift_last_run_timestamp_seconds"));
  // The lines a night appended to the log.
  const auto night_lines = [&log](std::size_t from) {
    const std::vector<std::string> all = lines_of(file_bytes(log));
    return std::vector<std::string>(
        all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end());
  };
  std::size_t gone_lines = 0;
  for (const std::string& l : night_lines(log_lines)) {
    if (l.find("broken.png: gone: ") == std::string::npos) continue;
    ++gone_lines;
    CHECK(l.find("no longer there (" + (inbox / "broken.png").string() + ")") != std::string::npos);
  }
  CHECK(gone_lines == 1);
  // The journal says it too: a gone record supersedes the failed one.
  std::vector<std::string> broken_status;
  for (const auto& r : journal_lines(results / "results.jsonl")) {
    if (r["file"] == "broken.png") broken_status.push_back(r["status"]);
  }
  CHECK(broken_status == std::vector<std::string>{"failed", "gone"});
  log_lines = lines_of(file_bytes(log)).size();

  // Night 3: history. Not failed, not gone again, nothing added to the journal.
  const std::size_t records = journal_lines(results / "results.jsonl").size();
  CHECK(run_shell(line).exit_code == 0);
  summary = docsift::testing::read_summary(results / "summary.json");
  CHECK(summary["images"]["failed"] == 0);
  CHECK(summary["images"]["gone"] == 0);
  CHECK(summary["images"]["pages"] == 1);
  m = metric_samples(prom);
  CHECK(m.at("docsift_images{status=\"failed\"}") == 0);
  CHECK(m.at("docsift_run_gone_images") == 0);
  CHECK(journal_lines(results / "results.jsonl").size() == records);
  for (const std::string& l : night_lines(log_lines)) {
    CAPTURE(l);
    CHECK(l.find("gone") == std::string::npos);
  }

  // merge leaves a gone page out, as the run's counts do.
  const auto merged = run_docsift("merge " + q(results) + " --out " + q(dir / "merged"));
  CHECK_MESSAGE(merged.exit_code == 0, merged.err);
  CHECK(merged.err.find("1 gone pages left out") != std::string::npos);
  const auto merged_records = journal_lines(dir / "merged" / "results.jsonl");
  REQUIRE(merged_records.size() == 1);
  CHECK(merged_records[0]["file"] == "a.png");
  CHECK(docsift::testing::read_summary(dir / "merged" / "summary.json")["images"]["failed"] == 0);

  // Night 4: the file comes back, fixed: a new page, read and counted.
  fs::copy_file(kSamples / "synthetic_invoice_003.png", inbox / "broken.png");
  CHECK(run_shell(line).exit_code == 0);
  summary = docsift::testing::read_summary(results / "summary.json");
  CHECK(summary["images"]["ok"] == 2);
  CHECK(summary["images"]["pages"] == 2);
  CHECK(csv_rows(results / "predictions.csv").count("broken.png") == 1);
}

TEST_CASE(
    "a failed page in a subfolder that can no longer be read is not gone: it stays failed, and the "
    "run exits 1") {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);  // nobody must reach the folders below
  const fs::path inbox = dir / "inbox", out = dir / "out";
  fs::create_directories(inbox / "priv");
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  write_truncated_png(inbox / "priv" / "broken.png");
  const std::string run = as_another_user() + DOCSIFT_BIN + " run " + q(inbox) + " -r --out " +
                          q(out / "results") + " --resume --retry-failed --quiet";
  const auto night1 = run_shell(run);
  if (another_user_unavailable(night1))
    DOCSIFT_SKIP("cannot run docsift as another user here: " << night1.err.substr(0, 200));
  REQUIRE(night1.exit_code == 1);
  fs::permissions(inbox / "priv", fs::perms::none);
  const auto night2 = run_shell(run);
  CHECK(night2.exit_code == 1);
  CHECK(night2.err.find("error: skipped priv/: cannot read this folder: Permission denied") !=
        std::string::npos);
  CHECK(night2.err.find("gone") == std::string::npos);
  const auto summary = docsift::testing::read_summary(out / "results" / "summary.json");
  CHECK(summary["images"]["failed"] == 1);
  CHECK(summary["images"]["gone"] == 0);
  fs::permissions(inbox / "priv", fs::perms::all);  // for TempDir's cleanup
}

TEST_CASE(
    "an inbox that cannot be read exits 3 naming it and the error, never 6, never 0 with "
    "--allow-empty") {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);
  const fs::path inbox = dir / "inbox", prom = dir / "m.prom";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::permissions(inbox, fs::perms::none);
  for (const std::string extra : {"", " --allow-empty"}) {
    CAPTURE(extra);
    const auto r = run_shell(as_another_user() + DOCSIFT_BIN + " run " + q(inbox) + " --out " +
                             q(dir / "out") + " --quiet --metrics " + q(prom) + extra);
    if (another_user_unavailable(r)) {
      fs::permissions(inbox, fs::perms::all);
      DOCSIFT_SKIP("cannot run docsift as another user here: " << r.err.substr(0, 200));
    }
    CHECK(r.exit_code == 3);
    CHECK(docsift::testing::one_log_line(r.err));
    CHECK(r.err.find("docsift: error: " + inbox.string() +
                     ": cannot read this folder: Permission denied") != std::string::npos);
    CHECK(r.err.find("no pages found") == std::string::npos);
    CHECK(metric_samples(prom).at("docsift_run_exit_code") == 3);
  }
  fs::permissions(inbox, fs::perms::all);
}

TEST_CASE(
    "an unreadable subfolder under -r is a skipped entry with its reason, in the log and "
    "summary.json: exit 1") {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);
  const fs::path inbox = dir / "inbox", out = dir / "out", prom = dir / "m.prom";
  fs::create_directories(inbox / "2026" / "private");
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "2026" / "b.png");
  fs::copy_file(kSamples / "synthetic_invoice_003.png", inbox / "2026" / "private" / "c.png");
  fs::permissions(inbox / "2026" / "private", fs::perms::none);
  const auto r = run_shell(as_another_user() + DOCSIFT_BIN + " run " + q(inbox) +
                           " -r --quiet --out " + q(out / "results") + " --metrics " + q(prom));
  fs::permissions(inbox / "2026" / "private", fs::perms::all);
  if (another_user_unavailable(r))
    DOCSIFT_SKIP("cannot run docsift as another user here: " << r.err.substr(0, 200));
  CHECK(r.exit_code == 1);
  CHECK(lines_with(
            r.err,
            "docsift: error: skipped 2026/private/: cannot read this folder: Permission denied") ==
        1);
  const auto summary = docsift::testing::read_summary(out / "results" / "summary.json");
  CHECK(summary["images"]["ok"] == 2);
  CHECK(summary["images"]["failed"] == 0);
  REQUIRE(summary["skipped_files"].size() == 1);
  CHECK(summary["skipped_files"][0]["file"] == "2026/private/");
  CHECK(summary["skipped_files"][0]["unreadable"] == true);
  CHECK(summary["skipped_files"][0]["reason"].get<std::string>().find("Permission denied") !=
        std::string::npos);
  const auto m = metric_samples(prom);
  CHECK(m.at("docsift_run_exit_code") == 1);
  CHECK(m.at("docsift_run_unreadable") == 1);
}

TEST_CASE(
    "subfolders not read without -r are counted and named in one line with the -r hint, also when "
    "the top has pages") {
  TempDir dir;
  const fs::path inbox = dir / "inbox";
  fs::create_directories(inbox / "2026");
  fs::create_directories(inbox / "late");
  fs::create_directories(inbox / ".archive");  // hidden: never read, never named
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "2026" / "b.png");
  const auto r = run_docsift("run " + q(inbox) + " --quiet --out " + q(dir / "out"));
  CHECK(r.exit_code == 0);
  CHECK(lines_with(r.err, "subfolders") == 1);
  CHECK(r.err.find("docsift: warning: 2 subfolders not read: " + (inbox / "2026").string() + ", " +
                   (inbox / "late").string() + "; pass -r (--recursive)") != std::string::npos);
  CHECK(r.err.find(".archive") == std::string::npos);
  CHECK(run_docsift("run " + q(inbox) + " -r --quiet --out " + q(dir / "out-r"))
            .err.find("subfolders") == std::string::npos);
}

TEST_CASE(
    "a run whose summary.json cannot be written after its pages exits 5, not 3, and --resume then "
    "writes it") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", out = dir / "out", prom = dir / "m.prom";
  fs::create_directories(inbox);
  // Two sellers at two addresses: no page agrees with the other (batch/agreement.h), so that each
  // page has one record.
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_020.png", inbox / "b.png");
  // summary.json lists the inputs as given, so the inbox given 500 times (read once) makes it
  // ~20 KB while the journal, the CSV, the metrics and the log stay a few KB: under a 12 KB
  // file-size limit (ulimit -f counts 512-byte blocks) only the summary cannot be written, as on a
  // disk that fills at the end of the run.
  std::string inputs;
  for (int i = 0; i < 500; ++i) inputs.append(" ").append(q(inbox));
  const std::string run =
      "run" + inputs + " --out " + q(out) + " --resume --quiet --metrics " + q(prom);
  const auto r = run_docsift(run, "ulimit -f 24;");
  CHECK(r.exit_code == 5);
  CHECK(lines_with(r.err,
                   "summary.json.tmp: cannot write: File too large; every page is journaled in") ==
        1);
  CHECK(r.err.find("plus --resume to write it") != std::string::npos);
  CHECK(journal_lines(out / "results.jsonl").size() == 2);
  CHECK_FALSE(fs::exists(out / "summary.json"));
  CHECK_FALSE(fs::exists(out / "summary.json.tmp"));
  const auto m = metric_samples(prom);
  CHECK(m.at("docsift_run_exit_code") == 5);
  CHECK(m.at("docsift_last_success_timestamp_seconds") == 0);  // outputs incomplete: not a success

  const auto again = run_docsift(run);
  CHECK(again.exit_code == 0);
  const auto summary = docsift::testing::read_summary(out / "summary.json");
  CHECK(summary["images"]["ok"] == 2);
  CHECK(summary["images"]["resumed_from_journal"] == 2);
  CHECK(metric_samples(prom).at("docsift_run_exit_code") == 0);
}

TEST_CASE("a metrics file that cannot be written is said, and never changes the run's exit code") {
  TempDir dir;
  const fs::path prom = dir / "no-such-folder" / "m.prom";
  fs::create_directories(dir / "inbox");
  fs::copy_file(kSamples / "synthetic_invoice_001.png", dir / "inbox" / "a.png");
  auto r = run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") +
                       " --quiet --metrics " + q(prom));
  CHECK(r.exit_code == 0);
  CHECK(lines_with(r.err, "docsift: error: " + prom.string() + ".tmp: cannot create") == 1);
  CHECK(r.err.find("(the exit code stays 0)") != std::string::npos);
  // A run that cannot start keeps its own code (3: a journal is there, --resume not given) too.
  r = run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") + " --quiet --metrics " +
                  q(prom));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("(the exit code stays 3)") != std::string::npos);
}

TEST_CASE(
    "a carried-over last success that is not a time (1e999, nan, negative, future, junk) is "
    "dropped with a warning") {
  TempDir dir;
  const fs::path prom = dir / "m.prom";
  // A run that cannot start (an input that is not there, exit 2) carries the last success over.
  const std::string run = "run " + q(dir / "absent") + " --quiet --metrics " + q(prom);
  for (const std::string value : {"1e999", "nan", "+Inf", "-5", "4102444800", "12abc"}) {
    CAPTURE(value);
    docsift::testing::write_text(prom,
                                 "# TYPE docsift_last_success_timestamp_seconds gauge\n"
                                 "docsift_last_success_timestamp_seconds " +
                                     value + "\n");
    const auto r = run_docsift(run);
    CHECK(r.exit_code == 2);
    CHECK(lines_with(r.err, "docsift: warning: " + prom.string() +
                                ": its docsift_last_success_timestamp_seconds \"" + value +
                                "\" is ") == 1);
    const auto m = metric_samples(prom);
    CHECK(m.at("docsift_run_exit_code") == 2);
    CHECK(m.at("docsift_last_success_timestamp_seconds") ==
          0);  // "no success known": the alert fires
  }
  // A valid time is kept, to the digit.
  docsift::testing::write_text(prom, "docsift_last_success_timestamp_seconds 1795000000.25\n");
  const auto r = run_docsift(run);
  CHECK(r.err.find("warning") == std::string::npos);
  CHECK(metric_samples(prom).at("docsift_last_success_timestamp_seconds") == 1795000000.25);
}

TEST_CASE(
    "a lock file docsift did not write (\"99999999999999999999999 run\") is named: taken exits 3, "
    "stale is taken over") {
  TempDir dir;
  const fs::path out = dir / "out", lock = out / ".docsift.lock";
  fs::create_directories(out);
  docsift::testing::write_text(lock, "99999999999999999999999 run");
  const std::string run =
      "run " + q(kSamples / "synthetic_invoice_001.png") + " --quiet --out " + q(out);
  {
    // Held (flock, as docsift takes it) by this process: another one holds the lock.
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    const auto r = run_docsift(run);
    ::close(fd);
    CHECK(r.exit_code == 3);
    CHECK(docsift::testing::one_log_line(r.err));
    CHECK(r.err.find("docsift: error: " + lock.string() +
                     ": locked by a process the file does not name: it holds "
                     "\"99999999999999999999999 run\"") != std::string::npos);
    CHECK(r.err.find("fuser -v " + lock.string()) != std::string::npos);
    CHECK(r.err.find("stol") == std::string::npos);
    CHECK_FALSE(fs::exists(out / "results.jsonl"));
  }
  // Nobody holds it: stale, taken over with a line that says so, and the run goes on.
  const auto r = run_docsift(run);
  CHECK(r.exit_code == 0);
  CHECK(lines_with(r.err, "docsift: warning: " + lock.string() +
                              ": held \"99999999999999999999999 run\"") == 1);
  CHECK(r.err.find("stale, so taken over") != std::string::npos);
  CHECK(journal_lines(out / "results.jsonl").size() == 1);
}

TEST_CASE(
    "every text log line starts with its RFC 3339 UTC time, parse errors included, and --quiet "
    "keeps 'reading again'") {
  TempDir dir;
  const fs::path inbox = dir / "inbox";
  fs::create_directories(inbox);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "scan.png");
  write_truncated_png(inbox / "broken.png");
  fs::create_symlink(dir / "gone.png", inbox / "dangling.png");
  const std::string run = "run " + q(inbox) + " --out " + q(dir / "out") + " --resume";
  auto r = run_docsift(run);
  CHECK(r.exit_code == 1);
  const auto lines = lines_of(r.err);
  CHECK(lines.size() >= 5);  // the engine notice, a skipped link, two pages, the closing line
  const std::regex line_shape(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z docsift: .+)");
  std::string previous;
  for (const std::string& l : lines) {
    CAPTURE(l);
    CHECK(std::regex_match(l, line_shape));
    CHECK(previous <= l.substr(0, 24));  // in time order
    previous = l.substr(0, 24);
  }
  const auto typo = run_docsift("run " + q(inbox) + " --resum");
  CHECK(typo.exit_code == 2);
  CHECK(std::regex_match(typo.err.substr(0, typo.err.size() - 1), line_shape));

  // The file changes under its name: the line that says it is read again shows under --quiet.
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "scan.png",
                fs::copy_options::overwrite_existing);
  r = run_docsift(run + " --quiet");
  CHECK(r.exit_code == 1);
  CHECK(lines_with(r.err, "docsift: reading scan.png again: changed since its record: size") == 1);
}
