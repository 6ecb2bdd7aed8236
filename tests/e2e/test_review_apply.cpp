// `docsift review apply` (docs/confidence.md, "Corrections"): a run of the OCR engine on three
// pages of samples/, review.csv's `corrected` column filled from the ground truth (re-saved as a
// spreadsheet would: CRLF, a BOM, quoted cells, its columns reordered, one added), applied; the
// journal, the three tables and summary.json checked against each other; eval before and after;
// the same file again (nothing written); a file that does not match (exit 7, nothing written);
// SIGKILL at each point of an apply, then the apply again, against an uninterrupted one; and
// `run --resume` afterwards, which keeps every correction.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

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
using docsift::testing::write_text;
using nlohmann::json;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
// Pages whose queue holds values that are not lists (sellers, an address, a date, an e-mail).
const char* const kPages[] = {"synthetic_invoice_005.png", "synthetic_invoice_010.png",
                              "synthetic_invoice_013.png"};

// Every run of these pages queues most of their values, so that the loop has corrections to make
// whatever the shipped thresholds accept on them (they are clean pages: with the defaults a
// better reading or threshold can leave nothing queued).
const std::string kQueueMost = " --set review.threshold=0.99";
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A run of three sample pages with the OCR engine, and the truth of those pages.
struct Run {
  TempDir dir;
  fs::path inbox = dir / "inbox", out = dir / "out", gt = dir / "truth.csv";
  Run() {
    fs::create_directories(inbox);
    for (const char* page : kPages) fs::copy_file(kSource / "samples" / page, inbox / page);
    std::map<std::string, std::string> names;
    for (const char* page : kPages) names[page] = page;
    write_text(gt, docsift::testing::samples_truth(names));
    const CliResult r = run_docsift("run " + q(inbox) + " --quiet --out " + q(out) + kQueueMost);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
};

// review.csv with `corrected` filled for every other queued value that is not a list (its value
// and " checked"), written as a spreadsheet re-saves it: a BOM, CRLF, every cell quoted, the
// columns in another order and one of its own added. Returns the corrections it makes: (page,
// field) → (value, corrected).
using Made = std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>>;
Made fill(const fs::path& review, const fs::path& to) {
  const auto table = docsift::io::read_csv(review);
  const auto column = [&](const std::string& name) {
    const auto it = std::find(table.header.begin(), table.header.end(), name);
    REQUIRE_MESSAGE(it != table.header.end(), "review.csv has no column ", name);
    return static_cast<std::size_t>(it - table.header.begin());
  };
  const std::size_t file = column("image_file"), field = column("field"), value = column("value");
  const auto quoted = [](const std::string& s) {
    std::string out = "\"";
    for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  Made made;
  std::string text = "\xEF\xBB\xBF\"note\",\"corrected\",\"value\",\"field\",\"image_file\"\r\n";
  std::size_t not_lists = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& row = table.rows[i];
    std::string corrected;
    if (!has(row[value], "|") && not_lists++ % 2 == 0) {
      corrected = row[value] + " checked";
      made[{row[file], row[field]}] = {row[value], corrected};
    }
    text += quoted("checked, by hand") + "," + quoted(corrected) + "," + quoted(row[value]) + "," +
            quoted(row[field]) + "," + quoted(row[file]) + "\r\n";
  }
  write_text(to, text);
  return made;
}

// The run's truth as the person's corrections say it is: each corrected value is the right one,
// so that the run's value was wrong.
void truth_with(const Run& run, const Made& made) {
  const auto table = docsift::io::read_csv(run.gt);
  std::string text;
  for (std::size_t i = 0; i < table.header.size(); ++i)
    text.append(i ? "," : "").append(docsift::io::csv_field(table.header[i]));
  text += "\n";
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto corrected = made.find({row[0], table.header[i]});
      text.append(i ? "," : "")
          .append(docsift::io::csv_field(i > 0 && corrected != made.end() ? corrected->second.second
                                                                          : row[i]));
    }
    text += "\n";
  }
  write_text(run.gt, text);
}

// The journal's records without the times of their corrections, to compare two applies.
std::vector<json> timeless(const fs::path& out) {
  std::vector<json> records = journal_lines(out / "results.jsonl");
  for (json& record : records) {
    if (record.contains("corrections")) {
      for (auto& [field, c] : record["corrections"].items()) c.erase("at");
    }
  }
  return records;
}

// predictions.csv, confidence.csv and review.csv agree with the journal's latest records.
void check_tables(const fs::path& out) {
  const auto pages = latest_records(out);
  const auto predictions = docsift::io::read_csv(out / "predictions.csv");
  const auto confidence = docsift::io::read_csv(out / "confidence.csv");
  REQUIRE(predictions.rows.size() == pages.size());
  for (std::size_t r = 0; r < predictions.rows.size(); ++r) {
    const json& record = pages.at(predictions.rows[r][0]);
    for (std::size_t i = 1; i < predictions.header.size(); ++i) {
      const std::string& f = predictions.header[i];
      CAPTURE(f);
      CHECK(predictions.rows[r][i] == record["fields"].value(f, "N/A"));
      if (record.contains("corrections") && record["corrections"].contains(f) &&
          record["fields"][f] != "N/A") {
        CHECK(confidence.rows[r][i] == "1.0000");
      }
    }
  }
  const auto review = docsift::io::read_csv(out / "review.csv");
  std::size_t queued = 0;
  for (const auto& [file, record] : pages) {
    for (const auto& f : record.value("review", json::array())) {
      ++queued;
      CHECK_FALSE(
          (record.contains("corrections") && record["corrections"].contains(f.get<std::string>())));
    }
  }
  CHECK(review.rows.size() == queued);
}

double accuracy(const Run& run, const std::string& name) {
  const fs::path report = run.dir / (name + ".json");
  const CliResult r = run_docsift("eval " + q(run.out / "predictions.csv") + " " + q(run.gt) +
                                  " --report " + q(report));
  REQUIRE_MESSAGE((r.exit_code == 0 || r.exit_code == 4), r.err);
  return json::parse(file_bytes(report))["overall"].get<double>();
}

// A copy of a run's folder.
fs::path copy_of(const fs::path& out, const fs::path& to) {
  fs::copy(out, to, fs::copy_options::recursive);
  return to;
}

}  // namespace

TEST_CASE(
    "review apply: corrections from a re-saved review.csv go into the journal, the tables, "
    "summary.json and eval") {
  Run run;
  const fs::path filled = run.dir / "filled.csv";
  const Made made = fill(run.out / "review.csv", filled);
  REQUIRE_MESSAGE(!made.empty(), "nothing queued on these pages");
  truth_with(run, made);
  const auto before = latest_records(run.out);
  const std::size_t lines_before = journal_lines(run.out / "results.jsonl").size();
  const json summary_before = json::parse(file_bytes(run.out / "summary.json"));
  const double accuracy_before = accuracy(run, "before");

  const CliResult r = run_docsift("review apply " + q(run.out) + " --file " + q(filled));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::set<std::string> pages;
  for (const auto& [key, change] : made) pages.insert(key.first);
  CHECK(has(r.out, "review apply: " + std::to_string(made.size()) + " correction"));
  CHECK(has(r.out, "to " + std::to_string(pages.size()) + " page"));
  CHECK(has(r.out, "(0 already applied); " + (run.out / "results.jsonl").string()));

  // One new record per corrected page, the originals kept beside the corrected values.
  CHECK(journal_lines(run.out / "results.jsonl").size() == lines_before + pages.size());
  const auto after = latest_records(run.out);
  for (const auto& [key, change] : made) {
    const auto& [page, field] = key;
    CAPTURE(page);
    CAPTURE(field);
    const json& record = after.at(page);
    CHECK(record["fields"][field] == change.second);
    CHECK(record["corrections"][field]["original"] == change.first);
    CHECK(record["corrections"][field]["at"].get<std::string>().ends_with("Z"));
    CHECK(before.at(page)["fields"][field] == change.first);
    if (record.contains("review")) {
      CHECK(std::find(record["review"].begin(), record["review"].end(), field) ==
            record["review"].end());
    }
    if (change.second != "N/A") CHECK(record["confidence"][field] == 1.0);
  }
  check_tables(run.out);
  const json summary = json::parse(file_bytes(run.out / "summary.json"));
  CHECK(summary["corrections"]["fields"] == made.size());
  CHECK(summary["corrections"]["pages"] == pages.size());
  CHECK(summary["review"]["fields_to_review"].get<int>() ==
        summary_before["review"]["fields_to_review"].get<int>() - static_cast<int>(made.size()));
  CHECK(summary["started_at"] == summary_before["started_at"]);  // the run's own facts stay
  const double accuracy_after = accuracy(run, "after");
  MESSAGE("eval before " << accuracy_before << ", after " << accuracy_after << " (" << made.size()
                         << " corrections)");
  CHECK(accuracy_after > accuracy_before);

  // eval --before-corrections scores the values as read: the accuracy before the apply.
  const fs::path before_report = run.dir / "before-corrections.json";
  const CliResult originals =
      run_docsift("eval " + q(run.out / "predictions.csv") + " " + q(run.gt) +
                  " --before-corrections --report " + q(before_report));
  REQUIRE_MESSAGE((originals.exit_code == 0 || originals.exit_code == 4), originals.err);
  CHECK(json::parse(file_bytes(before_report))["overall"].get<double>() ==
        doctest::Approx(accuracy_before));
  // The same from the journal itself as PRED (its originals read in the same pass as its values).
  const CliResult from_journal =
      run_docsift("eval " + q(run.out / "results.jsonl") + " " + q(run.gt) +
                  " --before-corrections --report " + q(before_report));
  REQUIRE_MESSAGE((from_journal.exit_code == 0 || from_journal.exit_code == 4), from_journal.err);
  CHECK(json::parse(file_bytes(before_report))["overall"].get<double>() ==
        doctest::Approx(accuracy_before));

  // The report marks each corrected value, the value read struck through, and lists the queue.
  const fs::path report = run.dir / "report";
  const CliResult rep = run_docsift("report " + q(run.out) + " --quiet --out " + q(report));
  REQUIRE_MESSAGE(rep.exit_code == 0, rep.err);
  std::size_t marked = 0;
  for (const auto& entry : fs::directory_iterator(report / "pages")) {
    const std::string html = file_bytes(entry.path());
    for (std::size_t at = html.find("class=\"corrected\""); at != std::string::npos;
         at = html.find("class=\"corrected\"", at + 1))
      ++marked;
  }
  CHECK(marked == made.size());
  const std::string queue = file_bytes(report / "queue.html");
  const auto review_rows = docsift::io::read_csv(run.out / "review.csv").rows;
  std::size_t rows = 0;
  for (std::size_t at = queue.find("<tr><td><a"); at != std::string::npos;
       at = queue.find("<tr><td><a", at + 1))
    ++rows;
  CHECK(rows == review_rows.size());
  CHECK(has(file_bytes(report / "index.html"), "href=\"queue.html\""));

  // The same file again: nothing new, nothing written.
  const std::string journal = file_bytes(run.out / "results.jsonl");
  const auto stamp = fs::last_write_time(run.out / "predictions.csv");
  const CliResult again = run_docsift("review apply " + q(run.out) + " --file " + q(filled));
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(has(again.out, "review apply: 0 corrections applied to 0 pages (" +
                           std::to_string(made.size()) + " already applied)"));
  CHECK(file_bytes(run.out / "results.jsonl") == journal);
  CHECK(fs::last_write_time(run.out / "predictions.csv") == stamp);

  // run --resume reads nothing again and keeps every correction, its tables and summary too.
  const CliResult resume =
      run_docsift("run " + q(run.inbox) + " --quiet --resume --out " + q(run.out) + kQueueMost);
  REQUIRE_MESSAGE(resume.exit_code == 0, resume.err);
  CHECK(file_bytes(run.out / "results.jsonl") == journal);
  check_tables(run.out);
  CHECK(json::parse(file_bytes(run.out / "summary.json"))["corrections"]["fields"] == made.size());

  // A corrected page whose file changed is kept, not read again, and the log says so.
  const std::string corrected_page = made.begin()->first.first;
  fs::copy_file(kSource / "samples" / "synthetic_invoice_004.png", run.inbox / corrected_page,
                fs::copy_options::overwrite_existing);
  const CliResult changed =
      run_docsift("run " + q(run.inbox) + " --resume --out " + q(run.out) + kQueueMost);
  REQUIRE_MESSAGE(changed.exit_code == 0, changed.err);
  CHECK(has(changed.err, corrected_page + ": its file changed"));
  CHECK(file_bytes(run.out / "results.jsonl") == journal);
}

TEST_CASE(
    "review apply refuses a file that does not match the journal with exit 7 and writes nothing") {
  Run run;
  const fs::path filled = run.dir / "filled.csv";
  const Made made = fill(run.out / "review.csv", filled);
  REQUIRE(!made.empty());
  const auto snapshot = [&] {
    std::string all;
    for (const char* name :
         {"results.jsonl", "predictions.csv", "confidence.csv", "review.csv", "summary.json"}) {
      all += file_bytes(run.out / name);
    }
    return all;
  };
  const std::string before = snapshot();
  const auto [key, change] = *made.begin();
  struct Bad {
    std::string what, text, message;
  };
  const std::string header = "image_file,field,value,corrected\r\n";
  const std::string row = key.first + "," + key.second + ",";
  const std::vector<Bad> bad{
      {"a value that is not the page's", header + row + "\"" + change.first + "x\",fixed\r\n",
       ":2: "},
      {"a page not in the journal", header + "absent.png," + key.second + ",1,2\r\n",
       "no such page"},
      {"a field the run does not have", header + key.first + ",NO_SUCH_FIELD,1,2\r\n",
       "not a field of this run"},
      {"a column missing", "image_file,field,value\r\n" + row + "1\r\n", "no corrected column"},
      {"an unterminated quote", header + row + "\"1,2\r\n", "never closed"},
      {"one value corrected twice, two ways",
       header + row + "\"" + change.first + "\",a\r\n" + row + "\"" + change.first + "\",b\r\n",
       "on line 2"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.what);
    const fs::path file = run.dir / "bad.csv";
    write_text(file, b.text);
    const CliResult r = run_docsift("review apply " + q(run.out) + " --file " + q(file));
    CHECK(r.exit_code == 7);
    CHECK_MESSAGE(has(r.err, b.message), r.err);
    CHECK(has(r.err, file.string()));
    CHECK(snapshot() == before);
  }
  // A row without a corrected value is no correction.
  write_text(run.dir / "none.csv", header + row + "whatever,\r\n");
  const CliResult none =
      run_docsift("review apply " + q(run.out) + " --file " + q(run.dir / "none.csv"));
  CHECK(none.exit_code == 0);
  CHECK(snapshot() == before);
}

TEST_CASE(
    "review apply killed with SIGKILL at each point, then applied again, ends as an apply never "
    "killed") {
  Run run;
  const fs::path filled = run.dir / "filled.csv";
  const Made made = fill(run.out / "review.csv", filled);
  std::set<std::string> pages;
  for (const auto& [key, change] : made) pages.insert(key.first);
  REQUIRE(!pages.empty());
  const fs::path reference = copy_of(run.out, run.dir / "reference");
  REQUIRE(run_docsift("review apply " + q(reference) + " --file " + q(filled)).exit_code == 0);

  std::vector<std::string> points;
  for (std::size_t n = 1; n <= pages.size(); ++n)
    points.push_back("hang@applied:image=" + std::to_string(n));
  points.push_back("hang@rebuilt:image=1");
  for (const std::string& point : points) {
    CAPTURE(point);
    const fs::path out =
        copy_of(run.out, run.dir / ("killed-" + std::to_string(&point - points.data())));
    const fs::path err = run.dir / "err.txt";
    fs::remove(err);
    const pid_t child = docsift::testing::start_shell("env DOCSIFT_FAULTS=" + point + " " +
                                                      q(DOCSIFT_BIN) + " review apply " + q(out) +
                                                      " --file " + q(filled) + " 2>" + q(err));
    const bool reached =
        docsift::testing::wait_until([&] { return has(file_bytes(err), "injected fault"); }, 60);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE_MESSAGE(reached, file_bytes(err));
    CHECK(WIFSIGNALED(status));
    // Killed: the journal holds the pages journaled so far, and the tables do not yet show them.
    if (point.starts_with("hang@applied"))
      CHECK(file_bytes(out / "predictions.csv") == file_bytes(run.out / "predictions.csv"));
    const CliResult again = run_docsift("review apply " + q(out) + " --file " + q(filled));
    REQUIRE_MESSAGE(again.exit_code == 0, again.err);
    CHECK(timeless(out) == timeless(reference));
    for (const char* name : {"predictions.csv", "confidence.csv", "review.csv", "summary.json"}) {
      CAPTURE(name);
      CHECK(file_bytes(out / name) == file_bytes(reference / name));
    }
    check_tables(out);
  }
}
