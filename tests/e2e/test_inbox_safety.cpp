// `docsift run` reads only what it was given, and stopping never starts anything.
// - Links planted in an inbox (as anyone who may write there can) whose target lies outside the
//   folders given are listed and never opened; --follow-links reads them (docs/run.md, "Links").
// - SIGTERM and SIGHUP to a `--isolate worker` run, reaching the worker first or the supervisor
//   first: exit 5, no worker started after the signal, the page in flight left for --resume.
// - A TIFF whose pages declare 30000 × 30000 is refused as too large, page by page.
// - A link (or a linked folder) put at a file's name between the scan and the read is not read.
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "docsift/error.h"
#include "docsift/image/pages.h"
#include "docsift/io/image_file.h"
#include "docsift/io/image_header.h"
#include "docsift/io/pages.h"
#include "docsift/io/source.h"
#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/processes.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::start_shell;
using docsift::testing::TempDir;
using docsift::testing::wait_until;
using docsift::testing::workers_for;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const std::string kFast =
    docsift::testing::fast_run_options({.fields_file = true, .max_new_tokens = 8});

// Watches files for being opened (inotify IN_OPEN): a stat or readlink of a link's target does not
// count, reading it does.
class OpenWatch {
 public:
  explicit OpenWatch(const std::vector<fs::path>& files)
      : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    REQUIRE(fd_ >= 0);
    for (const fs::path& f : files) REQUIRE(::inotify_add_watch(fd_, f.c_str(), IN_OPEN) >= 0);
  }
  ~OpenWatch() { ::close(fd_); }
  OpenWatch(const OpenWatch&) = delete;
  OpenWatch& operator=(const OpenWatch&) = delete;
  // Opens seen since the last call.
  int opens() {
    int n = 0;
    alignas(inotify_event) char buf[4096];
    ssize_t got;
    while ((got = ::read(fd_, buf, sizeof buf)) > 0) {
      for (ssize_t at = 0; at < got;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buf + at);
        if ((event->mask & IN_OPEN) != 0) ++n;
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    }
    return n;
  }

 private:
  int fd_;
};

nlohmann::json read_summary(const fs::path& out) {
  std::ifstream in(out / "summary.json");
  return nlohmann::json::parse(in);
}

// summary.json's skipped_files, by file.
std::map<std::string, nlohmann::json> skipped_by_file(const nlohmann::json& summary) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& s : summary.value("skipped_files", nlohmann::json::array())) out[s["file"]] = s;
  return out;
}

std::set<std::string> journal_files(const fs::path& journal) {
  std::set<std::string> files;
  for (const auto& r : journal_lines(journal)) files.insert(r["file"].get<std::string>());
  return files;
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
}

}  // namespace

TEST_CASE(
    "links out of the inbox (an image, a PDF, /etc/passwd) are listed, never opened, and "
    "--follow-links reads them") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", secret = dir / "secret";
  fs::create_directories(inbox / "sub");
  fs::create_directories(secret);
  fs::copy_file(kSource / "samples/synthetic_invoice_001.png", inbox / "scan.png");
  fs::copy_file(kSource / "samples/synthetic_invoice_002.png", secret / "payslip.png");
  fs::copy_file(kSource / "tests/fixtures/pages/one_page.pdf", secret / "contract.pdf");
  // What anyone who may write the inbox can plant: links to files and to a folder outside it.
  fs::create_symlink(secret / "payslip.png", inbox / "x.png");
  fs::create_symlink(secret / "contract.pdf", inbox / "y.pdf");
  fs::create_symlink("/etc/passwd", inbox / "passwd.png");
  fs::create_symlink(secret, inbox / "sub" / "away");
  // A link inside the inbox keeps today's behaviour: one record, under the file's own name.
  fs::create_symlink("scan.png", inbox / "alias.png");
  OpenWatch watch({secret / "payslip.png", secret / "contract.pdf"});

  const fs::path out = dir / "out";
  const auto r = run_docsift("run " + shell_quote(inbox.string()) + " -r" + kFast + " --out " +
                             shell_quote(out.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);  // skipping a link is not a failure
  CHECK(watch.opens() == 0);
  CHECK(journal_files(out / "results.jsonl") == std::set<std::string>{"scan.png"});
  const auto skipped = skipped_by_file(read_summary(out));
  for (const std::string name : {"x.png", "y.pdf", "passwd.png", "sub/away/"}) {
    CAPTURE(name);
    REQUIRE(skipped.count(name) == 1);
    const std::string reason = skipped.at(name)["reason"];
    CHECK(reason.find("outside the folders given") != std::string::npos);
    CHECK(reason.find("--follow-links") != std::string::npos);
    CHECK(skipped.at(name)["unreadable"] == false);
  }
  CHECK(skipped.at("alias.png")["reason"].get<std::string>().find("another name of scan.png") !=
        std::string::npos);
  CHECK(r.err.find("skipped x.png: a link to a file outside the folders given") !=
        std::string::npos);
  CHECK(last_line(r.err).find("4 links out of the inputs skipped (--follow-links reads them)") !=
        std::string::npos);

  // --files-from: the entries are read, a listed link under the same rule (its own folder is the
  // folder given); a link into the entry's own folder is read.
  const fs::path list = dir / "list.txt";
  fs::create_symlink("scan.png", inbox / "same-folder.png");
  docsift::testing::write_text(
      list, (inbox / "x.png").string() + "\n" + (inbox / "same-folder.png").string() + "\n");
  const fs::path listed = dir / "listed";
  const auto l = run_docsift("run --files-from " + shell_quote(list.string()) + kFast + " --out " +
                             shell_quote(listed.string()));
  REQUIRE_MESSAGE(l.exit_code == 0, l.err);
  CHECK(watch.opens() == 0);
  CHECK(journal_files(listed / "results.jsonl") ==
        std::set<std::string>{(inbox / "same-folder.png").string()});
  CHECK(skipped_by_file(read_summary(listed)).count((inbox / "x.png").string()) == 1);

  // Asked for: the image behind the link is read (and the watch sees it, so it would have above).
  const fs::path followed = dir / "followed";
  const auto f = run_docsift("run " + shell_quote(inbox.string()) + kFast +
                             " --follow-links --out " + shell_quote(followed.string()));
  CHECK(watch.opens() > 0);
  const auto records = journal_lines(followed / "results.jsonl");
  bool read_x = false;
  for (const auto& rec : records)
    read_x = read_x || (rec["file"] == "x.png" && rec["status"] == "ok");
  CHECK_MESSAGE(read_x, f.err);
  // The same through the config key.
  const fs::path keyed = dir / "keyed";
  (void)run_docsift("run " + shell_quote(inbox.string()) + kFast +
                    " --set input.follow_links=true --out " + shell_quote(keyed.string()));
  CHECK(journal_files(keyed / "results.jsonl").count("x.png") == 1);
}

TEST_CASE(
    "a link or a linked folder put at a file's name after the scan is not read, and no message "
    "says /proc") {
  TempDir dir;
  const fs::path inbox = dir / "inbox", secret = dir / "secret";
  fs::create_directories(inbox / "sub");
  fs::create_directories(secret);
  fs::copy_file(kSource / "samples/synthetic_invoice_001.png", inbox / "scan.png");
  fs::copy_file(kSource / "samples/synthetic_invoice_002.png", inbox / "sub" / "a.png");
  fs::copy_file(kSource / "samples/synthetic_invoice_003.png", secret / "payslip.png");
  fs::copy_file(kSource / "samples/synthetic_invoice_003.png", secret / "a.png");
  // What the scan resolved each name to.
  const fs::path scan_real = fs::canonical(inbox / "scan.png"),
                 sub_real = fs::canonical(inbox / "sub" / "a.png");
  const docsift::io::PageOptions options;
  // Unchanged: read, through the pinned opening.
  CHECK(docsift::io::page_count(inbox / "scan.png", options, scan_real) == 1);
  CHECK(docsift::image::read_page(inbox / "scan.png", 0, options, nullptr, scan_real).size(2) == 3);
  CHECK(docsift::io::content_hash(inbox / "scan.png", scan_real).has_value());

  // The file swapped for a link out, and the folder for a linked one, as the read begins.
  fs::remove(inbox / "scan.png");
  fs::create_symlink(secret / "payslip.png", inbox / "scan.png");
  fs::rename(inbox / "sub", dir / "sub-was");
  fs::create_symlink(secret, inbox / "sub");
  OpenWatch watch({secret / "payslip.png", secret / "a.png"});
  for (const auto& [name, real] :
       {std::pair{inbox / "scan.png", scan_real}, std::pair{inbox / "sub" / "a.png", sub_real}}) {
    CAPTURE(name);
    const auto refused = [&](auto&& read) {
      try {
        read();
        FAIL("read");
      } catch (const docsift::FileError& e) {
        const std::string what = e.what();
        CHECK(what.rfind(name.string() + ": is not the file the scan found there", 0) == 0);
        CHECK(what.find("--follow-links") != std::string::npos);
        CHECK(what.find("/proc/") == std::string::npos);
      }
    };
    refused([&] { (void)docsift::io::page_count(name, options, real); });
    refused([&] { (void)docsift::image::read_page(name, 0, options, nullptr, real); });
    CHECK_FALSE(docsift::io::content_hash(name, real).has_value());
  }
  CHECK(watch.opens() == 0);  // found, never opened
  // --follow-links (no path to hold the name to): read as the link leads.
  CHECK(docsift::image::read_page(inbox / "scan.png", 0, options).size(2) == 3);
  CHECK(watch.opens() > 0);

  // A damaged file read through the pinned opening is named by its own path in the message.
  docsift::testing::write_text(inbox / "broken.png", "\x89PNG\r\n\x1a\n and then nothing");
  try {
    (void)docsift::image::read_page(inbox / "broken.png", 0, options, nullptr,
                                    fs::canonical(inbox / "broken.png"));
    FAIL("read");
  } catch (const docsift::FileError& e) {
    const std::string what = e.what();
    CHECK(what.rfind((inbox / "broken.png").string() + ": ", 0) == 0);
    CHECK(what.find("/proc/") == std::string::npos);
    CHECK(what.find("png") != std::string::npos);
  }
}

namespace {

// The log's "worker: worker N started" lines.
int workers_started(const std::string& log) {
  int n = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    n += line.find("worker: worker ") != std::string::npos && line.ends_with(" started") ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_CASE(
    "--isolate worker: SIGTERM or SIGHUP to the process group, worker first or supervisor first: "
    "exit 5, no worker started after it, --resume completes") {
  struct Case {
    int sig;
    const char* order;  // "worker", "supervisor": which gets it first; "group": killpg
  };
  for (const Case c : {Case{SIGTERM, "worker"}, Case{SIGTERM, "supervisor"}, Case{SIGHUP, "worker"},
                       Case{SIGHUP, "supervisor"}, Case{SIGTERM, "group"}}) {
    CAPTURE(c.sig);
    const std::string order = c.order;
    CAPTURE(order);
    TempDir dir;
    const fs::path out = dir / "out", journal = out / "results.jsonl", log = dir / "log.txt";
    // Its own process group (setsid, which execs in place here), as a service or a login has.
    const pid_t supervisor = start_shell(
        "setsid " + std::string(DOCSIFT_BIN) + " run " +
        shell_quote((kSource / "samples").string()) + kFast + " --limit 6 --isolate worker --out " +
        shell_quote(out.string()) + " 2>" + shell_quote(log.string()));
    REQUIRE(wait_until([&] { return docsift::testing::complete_lines(journal) >= 1; }, 120));
    const std::vector<pid_t> before = workers_for(out);
    REQUIRE(before.size() == 1);
    const pid_t worker = *before.begin();
    if (std::string(c.order) == "group") {
      ::kill(-supervisor, c.sig);
    } else {
      ::kill(std::string(c.order) == "worker" ? worker : supervisor, c.sig);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ::kill(-supervisor, c.sig);  // then the whole group, as systemd or `timeout` does
    }
    // The process table until the supervisor exits: no worker but the one before.
    std::set<pid_t> seen;
    int status = 0;
    while (::waitpid(supervisor, &status, WNOHANG) == 0) {
      for (const pid_t p : workers_for(out)) seen.insert(p);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    for (const pid_t p : seen)
      CHECK_MESSAGE(std::count(before.begin(), before.end(), p) == 1,
                    "worker " << p << " started after the signal");
    REQUIRE(WIFEXITED(status));
    const std::string err = docsift::testing::file_bytes(log);
    CHECK_MESSAGE(WEXITSTATUS(status) == 5, err);
    CHECK_MESSAGE(workers_started(err) == 1, err);
    CHECK(err.find("retrying in a fresh worker") == std::string::npos);
    CHECK(err.find("--resume") != std::string::npos);
    CHECK(workers_for(out).empty());
    // Interrupted, not crashed: no failed record, the page in flight left for --resume.
    const auto records = journal_lines(journal);
    for (const auto& rec : records) CHECK_MESSAGE(rec["status"] == "ok", rec.dump());
    REQUIRE(records.size() < 6);
    const auto resumed =
        run_docsift("run " + shell_quote((kSource / "samples").string()) + kFast + " --limit " +
                    std::to_string(6 - records.size()) +
                    " --isolate worker --resume --quiet --out " + shell_quote(out.string()));
    REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
    CHECK(journal_files(journal).size() == 6);
    CHECK(journal_lines(journal).size() == 6);
  }
}

namespace {

// A little-endian TIFF of `pages` directories, each declaring width × height (8-bit grey, one
// strip), with a few bytes of pixel data: what a hostile file declares, not what it holds. The
// size tags are of `size_type`: LONG (4), or SHORT (3), SSHORT (8) or SLONG (9), which libtiff
// reads too. RowsPerStrip is `rows_per_strip`, or the height when 0.
std::string declaring_tiff(int pages, std::uint32_t width, std::uint32_t height,
                           std::uint16_t size_type = 4, std::uint32_t rows_per_strip = 0) {
  std::string t = "II*";
  t += '\0';
  const auto u16 = [&](std::uint16_t v) {
    t += static_cast<char>(v & 0xFF);
    t += static_cast<char>(v >> 8);
  };
  const auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) t += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  u32(8);
  const std::uint32_t entries = 8, ifd_bytes = 2 + entries * 12 + 4;
  const std::uint32_t data_at = 8 + static_cast<std::uint32_t>(pages) * ifd_bytes;
  for (int p = 0; p < pages; ++p) {
    const std::uint32_t at = 8 + static_cast<std::uint32_t>(p) * ifd_bytes;
    u16(entries);
    const auto entry = [&](std::uint16_t tag, std::uint16_t type, std::uint32_t value) {
      u16(tag);
      u16(type);
      u32(1);
      u32(value);
    };
    entry(256, size_type, width);                                  // ImageWidth
    entry(257, size_type, height);                                 // ImageLength
    entry(258, 3, 8);                                              // BitsPerSample
    entry(259, 3, 1);                                              // Compression: none
    entry(262, 3, 1);                                              // Photometric: black is zero
    entry(273, 4, data_at);                                        // StripOffsets
    entry(278, 4, rows_per_strip != 0 ? rows_per_strip : height);  // RowsPerStrip
    entry(279, 4, 16);                                             // StripByteCounts
    u32(p + 1 < pages ? at + ifd_bytes : 0);
  }
  t += std::string(16, '\x80');
  return t;
}

}  // namespace

TEST_CASE(
    "a TIFF whose pages declare 30000 x 30000 is refused as too large on every page, not as 'has "
    "no page 2'") {
  TempDir dir;
  fs::create_directories(dir / "in");
  // Sizes of every integer type libtiff reads (an SLONG size once went unchecked to the decoder),
  // and a negative one, which is no size: each refused before any decoder runs.
  const docsift::io::ImageLimits limits;
  for (const std::uint16_t type : {3, 8, 9}) {
    CAPTURE(type);
    docsift::testing::write_text(dir / "typed.tif", declaring_tiff(1, 30000, 30000, type));
    CHECK_THROWS_WITH(
        docsift::io::read_rgb_pixels(dir / "typed.tif", limits),
        doctest::Contains("declares 30000×30000 pixels, over the limit of 200 megapixels"));
  }
  // A small page in strips of 5 million rows: OpenCV would allocate the strip, not the page.
  docsift::testing::write_text(dir / "strips.tif", declaring_tiff(1, 100, 50, 4, 5'392'710));
  CHECK_THROWS_WITH(docsift::io::read_rgb_pixels(dir / "strips.tif", limits),
                    doctest::Contains("declares strips of 5392710 rows for an image of 50 rows"));
  // "One strip" as writers say it (2^32 - 1) is a page like any other: refused here only as too
  // large.
  docsift::testing::write_text(dir / "one-strip.tif",
                               declaring_tiff(1, 30000, 30000, 4, 0xFFFFFFFFu));
  CHECK_THROWS_WITH(docsift::io::read_rgb_pixels(dir / "one-strip.tif", limits),
                    doctest::Contains("declares 30000×30000"));
  docsift::testing::write_text(dir / "negative.tif", declaring_tiff(1, 0xFFFFFFF0u, 100, 9));
  CHECK_THROWS_WITH(docsift::io::read_rgb_pixels(dir / "negative.tif", limits),
                    doctest::Contains("declares no width and height; not decoded"));
  docsift::testing::write_text(dir / "in/huge.tif", declaring_tiff(2, 30000, 30000));
  const std::string bytes = docsift::testing::file_bytes(dir / "in/huge.tif");
  const auto sizes = docsift::io::tiff_page_sizes(
      {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
  REQUIRE(sizes.size() == 2);
  CHECK(sizes[1] == std::pair<std::uint64_t, std::uint64_t>{30000, 30000});
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + kFast + " --out " +
                             shell_quote((dir / "out").string()));
  CHECK(r.exit_code == 1);
  const auto records = journal_lines(dir / "out/results.jsonl");
  REQUIRE_MESSAGE(records.size() == 2, r.err);
  for (const auto& rec : records) {
    const std::string error = rec.value("error", "");
    CAPTURE(error);
    CHECK(error.find("declares 30000×30000 pixels, over the limit of 200 megapixels") !=
          std::string::npos);
    CHECK(error.find("has no page") == std::string::npos);
  }
}
