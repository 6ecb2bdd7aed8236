// `docsift report` (docs/report.md): the samples' run as a report with every page, its fields, the
// truth and the scores; hostile file names and truth values as text; the output folders it refuses;
// the baseline's values; a page whose file moved. Then the same report in headless Chromium,
// checked from the DOM after load, with every console message the browser logged and every network
// request the page made.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "docsift/io/csv.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/skip.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::run_shell;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// Lines for a failure message.
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::size_t files_in(const fs::path& dir, const std::string& extension) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == extension ? 1 : 0;
  return n;
}

// The OCR engine over samples/ into `out` (the README's run).
void run_samples(const fs::path& out) {
  const CliResult r = run_docsift("run " + q(kSource / "samples") + " --quiet --out " + q(out));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}

// A file name a page must never interpret: markup (no "/": a name cannot hold one), both quotes
// and a newline.
const std::string kHostile = "evil<script>alert(1)<b>\"q'\nname.png";
const std::string kHostileEscaped = "evil&lt;script&gt;alert(1)&lt;b&gt;&quot;q&#39;\nname.png";
const std::string kHostileTruth = "<img src=x onerror=alert(2)>";

// A run over one sample page under the hostile name (and a plain one), with a truth that names it
// and holds markup in a value.
struct HostileRun {
  TempDir tmp;
  fs::path inbox = tmp / "inbox", run = tmp / "run", truth = tmp / "truth.csv";
  HostileRun() {
    fs::create_directories(inbox);
    fs::copy_file(kSource / "samples" / "synthetic_invoice_001.png", inbox / kHostile);
    fs::copy_file(kSource / "samples" / "synthetic_invoice_002.png", inbox / "plain.png");
    const CliResult r = run_docsift("run " + q(inbox) + " --quiet --out " + q(run));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    write_text(truth,
               "image_file,DOCUMENT_TYPE,SUPPLIER,TOTAL\n\"evil<script>alert(1)<b>\"\"q'\nname."
               "png\",TAX INVOICE,\"" +
                   kHostileTruth +
                   "\",\"$2,480.62\"\nplain.png,TAX INVOICE,Eucalypt IT Services,\"$2,326.58\"\n");
  }
};

// The document page of `name` in a report: the index links each document's page beside its name.
fs::path page_of(const fs::path& report, const std::string& name_html) {
  const std::string index = file_bytes(report / "index.html");
  const std::size_t at = index.find("\">" + name_html + "</a>");
  REQUIRE_MESSAGE(at != std::string::npos, "the index does not list " << name_html);
  const std::size_t href = index.rfind("href=\"", at);
  REQUIRE(href != std::string::npos);
  return report / index.substr(href + 6, at - href - 6);
}

// The table row of `field` on a document page, from "<tr id="f-FIELD"" to its "</tr>".
std::string field_row(const std::string& html, const std::string& field) {
  const std::size_t at = html.find("<tr id=\"f-" + field + "\"");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</tr>", at) - at);
}

}  // namespace

TEST_CASE(
    "report: the samples' run with --truth has 20 documents with page images and fields, the "
    "scores and three types") {
  TempDir tmp;
  run_samples(tmp / "results");
  const CliResult r =
      run_docsift("report " + q(tmp / "results") + " --truth " +
                  q(kSource / "samples/ground_truth.csv") + " --out " + q(tmp / "report"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("20 documents (0 failed), 20 page images") != std::string::npos);
  const std::string index = file_bytes(tmp / "report/index.html");
  CHECK(count(index, "<tr class=\"doc-row\"") == 20);
  CHECK(files_in(tmp / "report/pages", ".html") == 20);
  CHECK(files_in(tmp / "report/img", ".jpg") == 20);
  // The size budget: 1,000 pages under about 100 MB is 100 KB a page, images and HTML together.
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(tmp / "report"))
    bytes += e.is_regular_file() ? e.file_size() : 0;
  CHECK(bytes < 20u * 100u * 1024u);
  // The three document types, the per-field scores, and eval's overall figure.
  for (const char* type : {">TAX INVOICE<", ">RECEIPT<", ">BANK STATEMENT<"})
    CHECK(index.find(type) != std::string::npos);
  CHECK(index.find("<table id=\"scores\">") != std::string::npos);
  CHECK(index.find("<th>TOTAL</th>") != std::string::npos);
  const CliResult eval = run_docsift("eval " + q(tmp / "results/predictions.csv") + " " +
                                     q(kSource / "samples/ground_truth.csv"));
  const std::smatch overall = [&] {
    std::smatch m;
    std::regex_search(eval.out, m, std::regex("overall[^0-9]*([0-9]\\.[0-9]{3})"));
    return m;
  }();
  REQUIRE(!overall.empty());
  CHECK(index.find("overall accuracy<b>" + overall[1].str() + "</b>") != std::string::npos);
  // The risk–coverage curves, inline: the OCR engine's records carry confidences.
  CHECK(index.find("<div class=\"charts\" id=\"curves\">") != std::string::npos);
  CHECK(index.find("<polyline class=\"curve\"") != std::string::npos);
  // One page: the value read, the truth, the score, and its box on the page image.
  const std::string page = file_bytes(page_of(tmp / "report", "synthetic_invoice_001.png"));
  const std::string total = field_row(page, "TOTAL");
  CHECK(total.find("$2,480.62") != std::string::npos);
  CHECK(count(total, "$2,480.62") == 2);  // the value and the truth
  CHECK(page.find("<image href=\"../img/") != std::string::npos);
  CHECK(page.find("<rect class=\"box") != std::string::npos);
  CHECK(page.find("data-field=\"TOTAL\" x=\"") != std::string::npos);
  // The table the page printed: a line per row of the record's line_items, each row's box on the
  // page linked to its line, and what the page's arithmetic said of the rows.
  const auto records = docsift::testing::journal_lines(tmp / "results/results.jsonl");
  const auto record = std::find_if(records.begin(), records.end(), [](const nlohmann::json& r) {
    return r["file"] == "synthetic_invoice_001.png";
  });
  REQUIRE(record != records.end());
  const std::size_t rows = (*record)["line_items"].size();
  REQUIRE(rows > 0);
  CHECK(page.find("<table id=\"rows\">") != std::string::npos);
  CHECK(count(page, "<tr id=\"r-") == rows);
  CHECK(count(page, "<rect class=\"box row\"") == rows);
  CHECK(page.find("<a href=\"#r-1\">") != std::string::npos);
  std::string first;  // the first row's description as HTML text
  for (const char c : (*record)["line_items"][0]["description"].get<std::string>())
    first += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  CHECK(page.find("<td class=\"value\">" + first + "</td>") != std::string::npos);
  // Each row's own confidence, as the record has it to three decimals, in a column of its own.
  CHECK(page.find("<th class=\"n\">Confidence</th>") != std::string::npos);
  for (const auto& item : (*record)["line_items"]) {
    REQUIRE(item.contains("confidence"));
    char cell[32];
    std::snprintf(cell, sizeof cell, "<td class=\"n\">%.3f</td></tr>",
                  item["confidence"].get<double>());
    CHECK(page.find(cell) != std::string::npos);
  }
  // Its rows print a quantity and a unit price, no amount: their products make the subtotal, and
  // the page says so.
  CHECK(page.find("<ul class=\"checks\"><li class=\"right\">the rows&#39; amounts sum to the "
                  "page&#39;s SUBTOTAL</li></ul>") != std::string::npos);
  // A statement whose opening balance and transactions miss its closing balance (the samples'
  // statements print balances their rows do not reach): the report says by how much, in the words
  // of review.csv's check on its DESCRIPTIONS.
  const std::string statement = file_bytes(page_of(tmp / "report", "synthetic_invoice_003.png"));
  const auto review = docsift::io::read_csv(tmp / "results/review.csv");
  std::string check;
  for (const auto& row : review.rows) {
    if (row[0] == "synthetic_invoice_003.png" && row[1] == "DESCRIPTIONS") check = row[6];
  }
  REQUIRE(check.find("opening balance + transactions is ") == 0);
  CHECK(check.find(" the closing balance") != std::string::npos);
  CHECK(statement.find("<ul class=\"checks\"><li class=\"wrong\">" + check + "</li>") !=
        std::string::npos);
}

TEST_CASE(
    "report: a file name and a truth value with markup, quotes and a newline are text, never "
    "markup") {
  const HostileRun h;
  const fs::path report = h.tmp / "report";
  const CliResult r =
      run_docsift("report " + q(h.run) + " --truth " + q(h.truth) + " --out " + q(report));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string index = file_bytes(report / "index.html");
  CHECK(index.find(kHostileEscaped) != std::string::npos);
  CHECK(index.find("<script>alert(1)") == std::string::npos);
  CHECK(index.find("alert(1)<b>") == std::string::npos);
  CHECK(count(index, "<script") == 1);  // the page's own
  const std::string page = file_bytes(page_of(report, kHostileEscaped));
  CHECK(page.find("<h1 class=\"name\" id=\"document-name\">" + kHostileEscaped + "</h1>") !=
        std::string::npos);
  CHECK(page.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  CHECK(page.find(kHostileTruth) == std::string::npos);
  CHECK(count(page, "<script") == 1);
  // The page file's own name is the report's, never the document's.
  for (const auto& e : fs::recursive_directory_iterator(report)) {
    CHECK_MESSAGE(e.path().filename().string().find('<') == std::string::npos, e.path());
  }
}

TEST_CASE(
    "report: refuses an --out inside the run's folder, a linked one, and a folder of other files, "
    "and writes nothing") {
  const HostileRun h;
  const std::string run = q(h.run);
  const CliResult inside = run_docsift("report " + run + " --out " + q(h.run / "report"));
  CHECK(inside.exit_code == 3);
  CHECK(inside.err.find("is, or is inside, the folder") != std::string::npos);
  CHECK_FALSE(fs::exists(h.run / "report"));
  fs::create_directories(h.tmp / "elsewhere");
  fs::create_directory_symlink(h.tmp / "elsewhere", h.tmp / "linked");
  const CliResult linked = run_docsift("report " + run + " --out " + q(h.tmp / "linked"));
  CHECK(linked.exit_code == 3);
  CHECK(linked.err.find("is a symbolic link") != std::string::npos);
  CHECK(fs::is_empty(h.tmp / "elsewhere"));
  fs::create_directory_symlink(h.run,
                               h.tmp / "into_run");  // a way into the run through a link: inside it
  CHECK(run_docsift("report " + run + " --out " + q(h.tmp / "into_run" / "r")).exit_code == 3);
  CHECK_FALSE(fs::exists(h.run / "r"));
  fs::create_directories(h.tmp / "mine");
  write_text(h.tmp / "mine" / "notes.txt", "keep me");
  const CliResult foreign = run_docsift("report " + run + " --out " + q(h.tmp / "mine"));
  CHECK(foreign.exit_code == 2);
  CHECK(foreign.err.find("holds files and no earlier report") != std::string::npos);
  CHECK_FALSE(fs::exists(h.tmp / "mine" / "index.html"));
  // A folder that is not a run's, a truth that is not there, a damaged journal.
  CHECK(run_docsift("report " + q(h.inbox) + " --out " + q(h.tmp / "r2")).exit_code == 2);
  CHECK(run_docsift("report " + run + " --truth " + q(h.tmp / "absent.csv") + " --out " +
                    q(h.tmp / "r3"))
            .exit_code == 2);
  fs::copy(h.run, h.tmp / "damaged");
  write_text(h.tmp / "damaged" / "results.jsonl",
             "{not json\n" + file_bytes(h.run / "results.jsonl"));
  const CliResult damaged =
      run_docsift("report " + q(h.tmp / "damaged") + " --out " + q(h.tmp / "r4"));
  CHECK(damaged.exit_code == 7);
  CHECK(damaged.err.find("results.jsonl:1") != std::string::npos);
  // An earlier report is replaced, its leftover pages removed.
  REQUIRE(run_docsift("report " + run + " --out " + q(h.tmp / "again")).exit_code == 0);
  write_text(h.tmp / "again" / "pages" / "d0099.html", "left over");
  REQUIRE(run_docsift("report " + run + " --out " + q(h.tmp / "again")).exit_code == 0);
  CHECK_FALSE(fs::exists(h.tmp / "again" / "pages" / "d0099.html"));
  CHECK(files_in(h.tmp / "again" / "pages", ".html") == 2);
}

TEST_CASE(
    "report: --baseline puts the other run's value beside each field and marks the changed ones") {
  const HostileRun h;
  // The baseline: the same run with plain.png's TOTAL read differently.
  fs::create_directories(h.tmp / "baseline");
  std::ofstream journal(h.tmp / "baseline" / "results.jsonl");
  for (nlohmann::json record : docsift::testing::journal_lines(h.run / "results.jsonl")) {
    if (record["file"] == "plain.png") record["fields"]["TOTAL"] = "$9.99";
    journal << record.dump() << "\n";
  }
  journal.close();
  const CliResult r = run_docsift("report " + q(h.run) + " --baseline " + q(h.tmp / "baseline") +
                                  " --out " + q(h.tmp / "report"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string page = file_bytes(page_of(h.tmp / "report", "plain.png"));
  const std::string total = field_row(page, "TOTAL");
  CHECK(total.find("$9.99 <span class=\"muted\">(changed)</span>") != std::string::npos);
  CHECK(field_row(page, "SUPPLIER").find("(changed)") == std::string::npos);
  CHECK(page.find("changed from the baseline<b>1</b>") != std::string::npos);
}

TEST_CASE(
    "report: a page whose file moved is shown without its image and said, and --pages finds it") {
  const HostileRun h;
  fs::rename(h.inbox, h.tmp / "moved");
  const CliResult r = run_docsift("report " + q(h.run) + " --out " + q(h.tmp / "report"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("2 of 2 documents are shown without their page image") != std::string::npos);
  CHECK(files_in(h.tmp / "report" / "img", ".jpg") == 0);
  CHECK(file_bytes(page_of(h.tmp / "report", "plain.png"))
            .find("No page image: the file is not where the run read it") != std::string::npos);
  const CliResult found = run_docsift("report " + q(h.run) + " --pages " + q(h.tmp / "moved") +
                                      " --out " + q(h.tmp / "report"));
  REQUIRE_MESSAGE(found.exit_code == 0, found.err);
  CHECK(found.err.find("without their page image") == std::string::npos);
  CHECK(files_in(h.tmp / "report" / "img", ".jpg") == 2);
}

namespace {

// The headless Chromium to test with: $DOCSIFT_CHROMIUM, else Debian's chromium-headless-shell or
// chromium (scripts/test.sh installs one); "" when there is none.
std::string find_chromium() {
  if (const char* env = std::getenv("DOCSIFT_CHROMIUM"); env != nullptr && *env != '\0') return env;
  for (const char* name : {"chromium-headless-shell", "chromium", "chromium-browser"}) {
    const CliResult r = run_shell(std::string("command -v ") + name);
    if (r.exit_code == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

struct Loaded {
  std::string dom;                   // the DOM after load, as Chromium serialises it
  std::vector<std::string> console;  // every console message Chromium logged
  std::vector<std::string> network;  // every request the page made that is not file:, and who
};

// Chromium's switches for a page load with no traffic of its own. A full Chromium (Debian's
// `chromium`; chromium-headless-shell has none of these services) still starts some with
// --disable-background-networking: the network time query (clients2.google.com/time, feature
// NetworkTimeServiceQuerying) and the on-device model manifest's component check
// (update.googleapis.com, which --disable-component-update does not stop and an empty
// --optimization-guide-manifest-override, in `load`, does). The others turn off what else it may
// start on its own: extensions, Domain Reliability and metrics uploads, the phishing model, crash
// reports, hints, translation, media-router discovery and autofill queries. Its sign-in service's
// accounts.google.com/ListAccounts has no switch: `page_requests` leaves it out by its initiator.
const char* const kQuietChromium =
    " --disable-background-networking --disable-component-update --disable-sync "
    "--disable-default-apps --disable-extensions --disable-domain-reliability "
    "--metrics-recording-only --disable-client-side-phishing-detection --disable-breakpad "
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,"
    "AutofillServerCommunication";

// The requests in Chromium's network log (--log-net-log) that the page made, as "URL (from
// INITIATOR)". The start of every URL request names the origin that initiated it: the page's own
// ("null" for a file: page's images and fetches, "file://" for a frame or a navigation it starts),
// or "not an origin" for Chromium's own services, which are left out. A start that names no
// initiator at all is counted. file:, data:, blob:, about: and chrome: never leave the machine.
std::vector<std::string> page_requests(const fs::path& netlog) {
  const nlohmann::json log = nlohmann::json::parse(file_bytes(netlog), nullptr, false);
  REQUIRE_MESSAGE(log.is_object(), "Chromium's network log is not JSON: " << netlog);
  const nlohmann::json::json_pointer start_job_type(
      "/constants/logEventTypes/URL_REQUEST_START_JOB");
  REQUIRE_MESSAGE(log.contains(start_job_type), "no URL_REQUEST_START_JOB in " << netlog);
  const nlohmann::json& start_job = log.at(start_job_type);
  const auto events = log.find("events");
  REQUIRE_MESSAGE((events != log.end() && events->is_array()), "no events in " << netlog);
  std::vector<std::string> out;
  for (const nlohmann::json& event : *events) {
    const auto type = event.find("type");
    const auto params = event.find("params");
    if (type == event.end() || *type != start_job || params == event.end() ||
        !params->contains("url"))
      continue;  // the event's end, or another event
    const std::string url = params->at("url").get<std::string>();
    const std::string initiator = params->value("initiator", "(none named)");
    if (initiator == "not an origin") continue;
    const std::string scheme = url.substr(0, url.find(':'));
    if (scheme == "file" || scheme == "data" || scheme == "blob" || scheme == "about" ||
        scheme == "chrome")
      continue;
    out.push_back(url + " (from " + initiator + ")");
  }
  return out;
}

// Loads `file` in headless Chromium with a fresh profile and no background traffic, and returns the
// DOM after load with what the browser logged: console messages from its stderr, the page's
// requests from its network log (every URL request it started, whatever the page's CSP said).
Loaded load(const std::string& chromium, const fs::path& file, const fs::path& scratch) {
  fs::create_directories(scratch);
  const fs::path netlog = scratch / "net.json";
  write_text(scratch / "no-models.json", "{}");
  const CliResult r = run_shell(
      shell_quote(chromium) + " --headless --no-sandbox --disable-gpu --no-first-run" +
      kQuietChromium + " --optimization-guide-manifest-override=" + q(scratch / "no-models.json") +
      " --enable-logging=stderr --v=0 --user-data-dir=" + q(scratch / "profile") +
      " --log-net-log=" + q(netlog) + " --virtual-time-budget=5000 --dump-dom " +
      shell_quote("file://" + fs::absolute(file).string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  Loaded out;
  out.dom = r.out;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") != std::string::npos) out.console.push_back(line);
  }
  out.network = page_requests(netlog);
  return out;
}

}  // namespace

TEST_CASE(
    "report: headless Chromium loads the samples' report and a hostile one with no console message "
    "and no network request") {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    DOCSIFT_SKIP(
        "no headless Chromium (apt-get install chromium-headless-shell; scripts/test.sh installs "
        "it)");
  TempDir tmp;
  // The detectors themselves: a page that logs an error and fetches from the network is caught.
  write_text(tmp / "control.html",
             "<!DOCTYPE html><title>c</title><img "
             "src=\"http://127.0.0.1:9/planted.png\"><script>console.error('planted')</script>");
  const Loaded control = load(chromium, tmp / "control.html", tmp / "c");
  CHECK_MESSAGE(!control.console.empty(),
                "the console detector saw nothing on a page that logs an error");
  CHECK_MESSAGE(!control.network.empty(),
                "the network detector saw nothing on a page that fetches an http image");
  // ...and only the page's: a full Chromium's own requests (in the same log) are not counted.
  for (const auto& request : control.network)
    CHECK_MESSAGE(request.rfind("http://127.0.0.1:9/planted.png (from ", 0) == 0,
                  "counted as the page's: " << request);

  run_samples(tmp / "results");
  const fs::path report = tmp / "report";
  const CliResult r = run_docsift("report " + q(tmp / "results") + " --truth " +
                                  q(kSource / "samples/ground_truth.csv") + " --out " + q(report));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const Loaded index = load(chromium, report / "index.html", tmp / "i");
  CHECK(count(index.dom, "<tr class=\"doc-row\"") == 20);
  CHECK(index.dom.find("<span id=\"shown\">20 of 20</span>") !=
        std::string::npos);  // the script ran
  CHECK(index.dom.find("<table id=\"scores\">") != std::string::npos);
  CHECK_MESSAGE(index.console.empty(), joined(index.console));
  CHECK_MESSAGE(index.network.empty(), joined(index.network));
  const Loaded page = load(chromium, page_of(report, "synthetic_invoice_001.png"), tmp / "p");
  const std::string total = field_row(page.dom, "TOTAL");
  CHECK(count(total, "$2,480.62") == 2);  // the value and the truth
  CHECK(page.dom.find("<image href=\"../img/") != std::string::npos);
  CHECK(page.dom.find("data-image=\"loaded\"") !=
        std::string::npos);  // the page's script loaded its image
  CHECK_MESSAGE(page.console.empty(), joined(page.console));
  CHECK_MESSAGE(page.network.empty(), joined(page.network));
  // Every document's page and its image, and the check itself: a page whose image is gone says so.
  for (const auto& e : fs::directory_iterator(report / "pages")) {
    const Loaded each = load(chromium, e.path(), tmp / "each");
    CHECK_MESSAGE(each.dom.find("data-image=\"loaded\"") != std::string::npos, e.path());
    CHECK_MESSAGE(each.console.empty(), joined(each.console));
    CHECK_MESSAGE(each.network.empty(), joined(each.network));
  }
  fs::remove(report / "img" / "d0002.jpg");
  CHECK(load(chromium, report / "pages" / "d0002.html", tmp / "gone")
            .dom.find("data-image=\"missing\"") != std::string::npos);

  const HostileRun h;
  REQUIRE(
      run_docsift("report " + q(h.run) + " --truth " + q(h.truth) + " --out " + q(h.tmp / "report"))
          .exit_code == 0);
  const Loaded hostile = load(chromium, page_of(h.tmp / "report", kHostileEscaped), tmp / "h");
  // Serialised back from the DOM: the name is one text node, and the only script is the page's own.
  CHECK(hostile.dom.find(
            "id=\"document-name\">evil&lt;script&gt;alert(1)&lt;b&gt;\"q'\nname.png</h1>") !=
        std::string::npos);
  CHECK(count(hostile.dom, "<script") == 1);
  CHECK(count(hostile.dom, "<img") == 0);
  CHECK(hostile.dom.find("alert(1)<b>") == std::string::npos);
  CHECK(hostile.dom.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  CHECK_MESSAGE(hostile.console.empty(), joined(hostile.console));
  CHECK_MESSAGE(hostile.network.empty(), joined(hostile.network));
}
