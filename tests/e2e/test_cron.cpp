// A nightly job as cron runs it (issue 28): failed pages retried once their file is fixed, changed
// files redone, an empty inbox noticed, every stderr line parseable, timestamps, the metrics file
// written whatever happens, typos answered, and inputs given as people give them. The OCR engine
// reads the pages: no weights, a fraction of a second each.
#include <sys/stat.h>

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
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::run_shell;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kSamples = kSource / "samples";

std::string q(const fs::path& p) { return shell_quote(p.string()); }

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
  for (std::size_t i = 1; i < lines.size(); ++i) rows[lines[i].substr(0, lines[i].find(','))] = lines[i];
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
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

const std::regex kRfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");

}  // namespace

TEST_CASE("the README's cron line recovers from a broken file fixed between two nights: exit 0, the page in the CSV") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", results = dir / "results", prom = dir / "docsift.prom", log = dir / "docsift.log";
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
    CHECK(l.starts_with("docsift: "));  // nothing a decoder printed by itself
  }
  CHECK(csv_rows(results / "predictions.csv").count("broken.png") == 0);
  auto m = metric_samples(prom);
  CHECK(m["docsift_run_exit_code"] == 1);
  CHECK(m["docsift_images{status=\"failed\"}"] == 1);

  // The file is restored; night 2 retries it by itself.
  fs::copy_file(kSamples / "synthetic_invoice_003.png", inbox / "broken.png", fs::copy_options::overwrite_existing);
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
  const auto summary = nlohmann::json::parse(file_bytes(results / "summary.json"));
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

TEST_CASE("--resume redoes a file that changed under the same name, not one only touched, and --resume-by-name keeps it") {
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
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "scan.png", fs::copy_options::overwrite_existing);
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
  const auto summary = nlohmann::json::parse(file_bytes(out / "summary.json"));
  CHECK(summary["images"]["changed"] == 1);
  CHECK(summary["images"]["ok"] == 2);
}

TEST_CASE("an empty inbox exits 6 and says so, pages only in subfolders name -r, --allow-empty exits 0") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", prom = dir / "m.prom";
  fs::create_directories(inbox / "2026" / "11");
  auto r = run_docsift("run " + q(inbox) + " --out " + q(dir / "out") + " --quiet --metrics " + q(prom));
  CHECK(r.exit_code == 6);
  CHECK(r.err.find("docsift: error: no pages found in " + inbox.string()) != std::string::npos);
  CHECK(metric_samples(prom)["docsift_run_exit_code"] == 6);
  CHECK(metric_samples(prom).count("docsift_last_success_timestamp_seconds") == 0);

  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "2026" / "11" / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_002.png", inbox / "2026" / "b.png");
  r = run_docsift("run " + q(inbox) + " --out " + q(dir / "out2") + " --quiet");
  CHECK(r.exit_code == 6);
  CHECK(r.err.find("2 in subfolders, which are read only with -r (--recursive)") != std::string::npos);
  CHECK(run_docsift("run " + q(inbox) + " -r --out " + q(dir / "out3") + " --quiet").exit_code == 0);
  CHECK(run_docsift("run " + q(inbox) + " --allow-empty --out " + q(dir / "out4") + " --quiet").exit_code == 0);
}

TEST_CASE("--log-format json: every stderr line is a JSON object with time, level and event, the errors included") {
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
      CHECK(j["error"].get<std::string>().find("libpng error: PNG input buffer is incomplete") != std::string::npos);
    }
    if (j["event"] == "summary") CHECK(j["exit_code"] == 1);
  }
  CHECK(kinds["engine"] == 1);   // the "no --model given" notice
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

TEST_CASE("records, events and summary.json carry RFC 3339 UTC timestamps, in order") {
  TempDir dir;
  const auto r = run_docsift("run " + q(kSamples) + " --limit 4 --out " + q(dir / "out") + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::string previous;
  for (const auto& record : journal_lines(dir / "out" / "results.jsonl")) {
    const std::string started = record["started_at"], finished = record["finished_at"];
    CHECK(std::regex_match(started, kRfc3339));
    CHECK(std::regex_match(finished, kRfc3339));
    CHECK(started <= finished);  // RFC 3339 UTC with fixed digits sorts as text in time order
    CHECK(previous <= started);
    previous = finished;
  }
  const auto summary = nlohmann::json::parse(file_bytes(dir / "out" / "summary.json"));
  CHECK(summary["started_at"].get<std::string>() <= journal_lines(dir / "out" / "results.jsonl")[0]["started_at"]);
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
  REQUIRE(run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") + " --quiet --metrics " + q(prom)).exit_code == 0);
  const auto good = metric_samples(prom);
  CHECK(good.at("docsift_run_exit_code") == 0);
  const double success = good.at("docsift_last_success_timestamp_seconds");
  CHECK(success > 1.7e9);
  // Cannot start: the journal is there and --resume is not given (exit 3); the file is written,
  // the last success kept from the file it replaces.
  const auto r = run_docsift("run " + q(dir / "inbox") + " --out " + q(dir / "out") + " --quiet --metrics " + q(prom));
  CHECK(r.exit_code == 3);
  const auto failed = metric_samples(prom);
  CHECK(failed.at("docsift_run_exit_code") == 3);
  CHECK(failed.at("docsift_last_success_timestamp_seconds") == success);
  CHECK(failed.at("docsift_last_run_timestamp_seconds") >= success);
  CHECK(failed.count("docsift_images{status=\"ok\"}") == 0);  // nothing is known of a run that did not start
  // A usage error after parsing (an input that is not there) writes it too.
  CHECK(run_docsift("run " + q(dir / "absent") + " --quiet --metrics " + q(prom)).exit_code == 2);
  CHECK(metric_samples(prom).at("docsift_run_exit_code") == 2);
}

TEST_CASE("typos get one line with the nearest command or option, ranges read as written, ignored options are said") {
  const auto one_line = [](const std::string& err) { return err.starts_with("docsift: error: ") && err.find('\n') == err.size() - 1; };
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
  r = run_docsift("run " + q(kSamples / "synthetic_invoice_001.png") + " --device cuda --out " + q(dir / "out"));
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("docsift: warning: --device cuda is ignored: the OCR engine runs on the CPU") != std::string::npos);
}

TEST_CASE("inputs as people give them: folders and files mixed, --files-from - and -0, one identity each") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", extra = dir / "extra";
  fs::create_directories(inbox);
  fs::create_directories(extra);
  fs::copy_file(kSamples / "synthetic_invoice_001.png", inbox / "a.png");
  fs::copy_file(kSamples / "synthetic_invoice_003.png", extra / "b.png");
  fs::copy_file(kSamples / "synthetic_invoice_004.png", extra / "a.png");

  // A folder and a file: the folder's pages by their path in it, the file by its path as given.
  auto r = run_shell("cd " + q(dir.path()) + " && " + DOCSIFT_BIN + " run inbox ./extra/b.png --out out --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> files;
  for (const auto& rec : journal_lines(dir / "out" / "results.jsonl")) files.push_back(rec["file"]);
  CHECK(files == std::vector<std::string>{"a.png", "extra/b.png"});
  // Again with --resume: the same identities, nothing redone.
  r = run_shell("cd " + q(dir.path()) + " && " + DOCSIFT_BIN + " run inbox extra/b.png --out out --resume");
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("0 processed (0 ok, 0 failed), 2 already done") != std::string::npos);

  // Two folders that both hold a.png cannot share one journal: said before anything runs.
  r = run_docsift("run " + q(inbox) + " " + q(extra) + " --out " + q(dir / "clash"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("would both be \"a.png\" in the journal") != std::string::npos);

  // --files-from -: one path a line; a listed path that is gone is skipped and said.
  r = run_shell("cd " + q(dir.path()) + " && printf 'inbox/a.png\\nextra/b.png\\n\\nextra/gone.png\\n' | " + DOCSIFT_BIN +
                " run --files-from - --out listed --quiet");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("skipped extra/gone.png: not there") != std::string::npos);
  files.clear();
  for (const auto& rec : journal_lines(dir / "listed" / "results.jsonl")) files.push_back(rec["file"]);
  CHECK(files == std::vector<std::string>{"extra/b.png", "inbox/a.png"});
  // -0: NUL-separated, as find -print0 writes.
  r = run_shell("cd " + q(dir.path()) + " && find extra -name '*.png' -print0 | " + DOCSIFT_BIN +
                " run --files-from - -0 --out nul --quiet");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(dir / "nul" / "results.jsonl").size() == 2);
}
