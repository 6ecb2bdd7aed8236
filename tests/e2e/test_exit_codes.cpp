// The exit-code table (`docsift --exit-codes`, the README's and docs/cli.md's table) against what
// each command returns: one case for every (command, code) the table documents, and no case the
// table does not document. A missing input is 2 and an unreadable one 3 in every command.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/model_stack.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::CliResult;
using docsift::testing::file_bytes;
using docsift::testing::q;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

// (command, code) → what the row documents, from `docsift --exit-codes`: "| 3 | run, eval | … |".
std::set<std::pair<std::string, int>> documented_pairs() {
  const CliResult r = run_docsift("--exit-codes");
  REQUIRE(r.exit_code == 0);
  std::set<std::pair<std::string, int>> pairs;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("| ") || line.starts_with("| code")) continue;
    const std::size_t a = line.find(" | ", 1), b = line.find(" | ", a + 3);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    const int code = std::stoi(line.substr(2, a - 2));
    std::istringstream commands(line.substr(a + 3, b - a - 3));
    std::string command;
    while (std::getline(commands, command, ',')) {
      command.erase(0, command.find_first_not_of(' '));
      pairs.insert({command, code});
    }
  }
  return pairs;
}

// The folders the cases read, made once: a traversable root so that the cases run as nobody
// (root reads any file, so an unreadable input is tested as another user would meet it).
struct Inputs {
  TempDir tmp;
  fs::path root = tmp.path(), page = kSource / "samples" / "synthetic_invoice_001.png";
  std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";

  Inputs() {
    fs::permissions(root, fs::perms::all);  // nobody writes its outputs here, and reads what it may
    fs::create_directories(root / "one");
    fs::copy_file(page, root / "one" / page.filename());
    fs::create_directories(root / "bad");
    fs::copy_file(page, root / "bad" / page.filename());
    write_text(root / "bad" / "broken.png", "\x89PNG\r\n\x1a\nnot a png at all");
    fs::create_directories(root / "empty");
    fs::create_directories(root / "locked");
    fs::copy_file(page, root / "locked" / page.filename());
    fs::permissions(root / "locked", fs::perms::none);
    fs::create_directories(root / "no_config");
    write_text(root / "no_config" / "model.safetensors", "");
    // eval's files
    const std::string truth = file_bytes(kSource / "samples" / "ground_truth.csv");
    write_text(root / "truth.csv", truth);
    write_text(root / "first_row.csv", truth.substr(0, truth.find('\n', truth.find('\n') + 1) + 1));
    write_text(root / "unterminated.csv", "image_file,TOTAL\n\"synthetic_invoice_001.png,1.00\n");
    write_text(root / "unreadable.csv", truth);
    fs::permissions(root / "unreadable.csv", fs::perms::none);
    // A run's output folders, for merge: one whole, one with a failed page.
    REQUIRE(
        run_docsift("run " + q(root / "one") + " --quiet --out " + q(root / "ok_run")).exit_code ==
        0);
    REQUIRE(
        run_docsift("run " + q(root / "bad") + " --quiet --out " + q(root / "bad_run")).exit_code ==
        1);
    fs::copy(root / "ok_run", root / "damaged_run");
    write_text(root / "damaged_run" / "results.jsonl",
               "{not json\n" + file_bytes(root / "ok_run" / "results.jsonl"));
    fs::copy(root / "ok_run", root / "unreadable_run");
    fs::permissions(root / "unreadable_run" / "results.jsonl", fs::perms::none);
    // review apply's: a copy of the run to correct, and CSVs: one with no correction, one that
    // corrects the first value of its page, one whose value is not the page's.
    fs::copy(root / "ok_run", root / "review5_run");
    const nlohmann::json first = nlohmann::json::parse(
        file_bytes(root / "ok_run" / "results.jsonl")
            .substr(0, file_bytes(root / "ok_run" / "results.jsonl").find('\n')));
    const std::string field = first["fields"].begin().key(),
                      value = first["fields"].begin()->get<std::string>();
    const auto cell = [](const std::string& s) {
      std::string out = "\"";
      for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
      return out + "\"";
    };
    const std::string header = "image_file,field,value,corrected\n",
                      page = first["file"].get<std::string>() + "," + field + ",";
    write_text(root / "no_corrections.csv", header);
    write_text(root / "corrections.csv", header + page + cell(value) + ",corrected by hand\n");
    write_text(root / "mismatch.csv",
               header + page + cell(value + " not this") + ",corrected by hand\n");
    fs::create_directories(root / "damaged_out");
    write_text(root / "damaged_out" / "results.jsonl", "{\"image_file\": 1}\nnot json\n");
  }
  ~Inputs() {
    std::error_code ec;
    fs::permissions(root / "locked", fs::perms::owner_all, ec);  // so that TempDir can remove it
  }
};

struct Case {
  std::string command;
  int code;
  std::string what;
  std::function<CliResult(const Inputs&)> run;
  bool model = false;  // runs the model stack: skipped in a build without LibTorch
};

std::vector<Case> cases() {
  const std::string tokenizer = q(kSource / "tests/fixtures/tokenizers/tiny-qwen/tokenizer.json");
  const std::string model = q(kSource / "tests/fixtures/internvl/hf");
  return {
      {"run", 0, "one page read",
       [](const Inputs& in) {
         return run_docsift("run " + q(in.root / "one") + " --quiet --out " + q(in.root / "run0"));
       }},
      {"run", 1, "a broken page beside a good one",
       [](const Inputs& in) {
         return run_docsift("run " + q(in.root / "bad") + " --quiet --out " + q(in.root / "run1"));
       }},
      {"run", 2, "an inbox that is not there",
       [](const Inputs& in) {
         return run_docsift("run " + q(in.root / "absent") + " --quiet --out " +
                            q(in.root / "run2"));
       }},
      {"run", 3, "an inbox that cannot be read",
       [](const Inputs& in) {
         return run_docsift(
             "run " + q(in.root / "locked") + " --quiet --allow-empty --out " + q(in.root / "run3"),
             in.as_user);
       }},
      {"run", 5, "a journal write refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift(
             "run " + q(kSource / "samples") +
                 docsift::testing::fast_run_options({.max_new_tokens = 2, .quiet = true}) +
                 " --out " + q(in.root / "run5"),
             "ulimit -f 16;");
       },
       true},
      {"run", 6, "an empty inbox",
       [](const Inputs& in) {
         return run_docsift("run " + q(in.root / "empty") + " --quiet --out " +
                            q(in.root / "run6"));
       }},
      {"run", 7, "--resume over a damaged journal",
       [](const Inputs& in) {
         return run_docsift("run " + q(in.root / "one") + " --quiet --resume --out " +
                            q(in.root / "damaged_out"));
       }},
      {"eval", 0, "the truth against itself",
       [](const Inputs& in) {
         return run_docsift("eval " + q(in.root / "truth.csv") + " " + q(in.root / "truth.csv") +
                            " --min-accuracy 0.99");
       }},
      {"eval", 2, "predictions that are not there",
       [](const Inputs& in) {
         return run_docsift("eval " + q(in.root / "absent.csv") + " " + q(in.root / "truth.csv"));
       }},
      {"eval", 3, "predictions that cannot be read",
       [](const Inputs& in) {
         return run_docsift(
             "eval " + q(in.root / "unreadable.csv") + " " + q(in.root / "truth.csv"), in.as_user);
       }},
      {"eval", 4, "one row of twenty under a gate",
       [](const Inputs& in) {
         return run_docsift("eval " + q(in.root / "first_row.csv") + " " +
                            q(in.root / "truth.csv") + " --min-accuracy 0.9");
       }},
      {"eval", 5, "a report refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift("eval " + q(in.root / "truth.csv") + " " + q(in.root / "truth.csv") +
                                " --report " + q(in.root / "eval5.json"),
                            "ulimit -f 0;");
       }},
      {"eval", 7, "a CSV with an unterminated quote",
       [](const Inputs& in) {
         return run_docsift("eval " + q(in.root / "unterminated.csv") + " " +
                            q(in.root / "truth.csv"));
       }},
      {"merge", 0, "one whole run",
       [](const Inputs& in) {
         return run_docsift("merge " + q(in.root / "ok_run") + " --quiet --out " +
                            q(in.root / "merge0"));
       }},
      {"merge", 1, "a run with a failed page",
       [](const Inputs& in) {
         return run_docsift("merge " + q(in.root / "bad_run") + " --quiet --out " +
                            q(in.root / "merge1"));
       }},
      {"merge", 2, "a folder that is not there",
       [](const Inputs& in) {
         return run_docsift("merge " + q(in.root / "absent") + " --quiet --out " +
                            q(in.root / "merge2"));
       }},
      {"merge", 3, "a journal that cannot be read",
       [](const Inputs& in) {
         return run_docsift(
             "merge " + q(in.root / "unreadable_run") + " --quiet --out " + q(in.root / "merge3"),
             in.as_user);
       }},
      {"merge", 5, "a merged journal refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift(
             "merge " + q(in.root / "ok_run") + " --quiet --out " + q(in.root / "merge5"),
             "ulimit -f 1;");
       }},
      {"merge", 7, "a journal with a line that is not JSON",
       [](const Inputs& in) {
         return run_docsift("merge " + q(in.root / "damaged_run") + " --quiet --out " +
                            q(in.root / "merge7"));
       }},
      {"report", 0, "one whole run",
       [](const Inputs& in) {
         return run_docsift("report " + q(in.root / "ok_run") + " --quiet --out " +
                            q(in.root / "report0"));
       }},
      {"report", 2, "a folder that is not there",
       [](const Inputs& in) {
         return run_docsift("report " + q(in.root / "absent") + " --quiet --out " +
                            q(in.root / "report2"));
       }},
      {"report", 3, "a journal that cannot be read",
       [](const Inputs& in) {
         return run_docsift(
             "report " + q(in.root / "unreadable_run") + " --quiet --out " + q(in.root / "report3"),
             in.as_user);
       }},
      {"report", 5, "a page image refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift(
             "report " + q(in.root / "ok_run") + " --quiet --out " + q(in.root / "report5"),
             "ulimit -f 16;");
       }},
      {"report", 7, "a journal with a line that is not JSON",
       [](const Inputs& in) {
         return run_docsift("report " + q(in.root / "damaged_run") + " --quiet --out " +
                            q(in.root / "report7"));
       }},
      {"review", 0, "a CSV with no correction in it",
       [](const Inputs& in) {
         return run_docsift("review apply " + q(in.root / "ok_run") + " --file " +
                            q(in.root / "no_corrections.csv"));
       }},
      {"review", 2, "a folder that is not there",
       [](const Inputs& in) {
         return run_docsift("review apply " + q(in.root / "absent") + " --file " +
                            q(in.root / "corrections.csv"));
       }},
      {"review", 3, "a folder whose lock a process holds",
       [](const Inputs& in) {
         return run_docsift(
             "review apply " + q(in.root / "ok_run") + " --file " + q(in.root / "corrections.csv"),
             "flock " + q(in.root / "ok_run" / ".docsift.lock"));
       }},
      {"review", 5, "a journal record refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift("review apply " + q(in.root / "review5_run") + " --file " +
                                q(in.root / "corrections.csv"),
                            "ulimit -f 1;");
       }},
      {"review", 7, "a value that is not the page's",
       [](const Inputs& in) {
         return run_docsift("review apply " + q(in.root / "ok_run") + " --file " +
                            q(in.root / "mismatch.csv"));
       }},
      {"review", 0, "sellers: one whole run",
       [](const Inputs& in) {
         return run_docsift("review sellers " + q(in.root / "ok_run") + " --out " +
                            q(in.root / "sellers0.tsv"));
       }},
      {"review", 2, "sellers: --out at the run's journal",
       [](const Inputs& in) {
         return run_docsift("review sellers " + q(in.root / "ok_run") + " --out " +
                            q(in.root / "ok_run" / "results.jsonl"));
       }},
      {"review", 3, "sellers: a journal that cannot be read",
       [](const Inputs& in) {
         return run_docsift("review sellers " + q(in.root / "unreadable_run") + " --out " +
                                q(in.root / "sellers3.tsv"),
                            in.as_user);
       }},
      {"review", 5, "sellers: the list refused by the file-size limit",
       [](const Inputs& in) {
         return run_docsift("review sellers " + q(in.root / "ok_run") + " --checked --out " +
                                q(in.root / "sellers5.tsv"),
                            "ulimit -f 0;");
       }},
      {"review", 7, "sellers: a journal with a line that is not JSON",
       [](const Inputs& in) {
         return run_docsift("review sellers " + q(in.root / "damaged_run") + " --out " +
                            q(in.root / "sellers7.tsv"));
       }},
      {"inspect", 0, "the tiny fixture",
       [model](const Inputs&) { return run_docsift("inspect " + model); }, true},
      {"inspect", 2, "a model folder that is not there",
       [](const Inputs& in) { return run_docsift("inspect " + q(in.root / "absent")); }, true},
      {"inspect", 3, "a model folder that cannot be read",
       [](const Inputs& in) { return run_docsift("inspect " + q(in.root / "locked"), in.as_user); },
       true},
      {"generate", 0, "two tokens from the tiny fixture",
       [model](const Inputs& in) {
         return run_docsift(
             "generate --model " + model + " --image " + q(in.page) +
             " --device cpu --dtype float32 --max-tiles 1 --max-new-tokens 2 --prompt hello");
       },
       true},
      {"generate", 2, "an image that is not there",
       [model](const Inputs& in) {
         return run_docsift("generate --model " + model + " --image " + q(in.root / "absent.png") +
                            " --device cpu --prompt hello");
       },
       true},
      {"generate", 3, "a model folder with no config.json",
       [](const Inputs& in) {
         return run_docsift("generate --model " + q(in.root / "no_config") + " --image " +
                            q(in.page) + " --device cpu --prompt hello");
       },
       true},
      {"config", 0, "the defaults", [](const Inputs&) { return run_docsift("config"); }},
      {"config", 2, "an unknown key",
       [](const Inputs&) { return run_docsift("config --set no.such_key=1"); }},
      {"tokenize", 0, "a word",
       [tokenizer](const Inputs&) {
         return run_docsift("tokenize --tokenizer " + tokenizer + " --text hello");
       }},
      {"tokenize", 2, "a tokenizer that is not there",
       [](const Inputs& in) {
         return run_docsift("tokenize --tokenizer " + q(in.root / "absent.json") + " --text hello");
       }},
  };
}

}  // namespace

TEST_CASE("every exit code the table documents is what each command returns, case by case") {
  const auto documented = documented_pairs();
  const auto all = cases();
  std::set<std::pair<std::string, int>> tested;
  for (const Case& c : all) tested.insert({c.command, c.code});
  for (const auto& [command, code] : documented) {
    CHECK_MESSAGE(tested.count({command, code}) == 1, "the table documents ", command, " exit ",
                  code, " but no case runs it");
  }
  for (const auto& [command, code] : tested) {
    CHECK_MESSAGE(documented.count({command, code}) == 1, "a case expects ", command, " exit ",
                  code, ", which the table does not document");
  }
  const Inputs inputs;
  for (const Case& c : all) {
    if (c.model && !docsift::testing::model_stack_built()) {
      MESSAGE(c.command, " (", c.what, "): not run, this build has no LibTorch");
      continue;
    }
    const CliResult r = c.run(inputs);
    CHECK_MESSAGE(r.exit_code == c.code, c.command, " (", c.what, "): exit ", r.exit_code,
                  ", documented ", c.code, "; stderr: ", r.err);
    if (c.code >= 2 && c.code != 4 && c.code != 5) {
      // An error that ends a command is its last stderr line, naming the problem.
      CHECK_MESSAGE(r.err.find("error") != std::string::npos, c.command, " (", c.what,
                    ") printed no error line: ", r.err);
    }
  }
}

TEST_CASE("--help's footer and the README's table come from the same code table") {
  const CliResult help = run_docsift("--help");
  CHECK(help.exit_code == 0);
  const CliResult table = run_docsift("--exit-codes");
  const std::string readme = file_bytes(kSource / "README.md");
  // The README's table is the binary's, line for line (scripts/gen_docs.sh writes it).
  CHECK(readme.find(table.out) != std::string::npos);
  CHECK(help.out.find("Exit codes: 0 ") != std::string::npos);
  for (int code = 1; code <= 7; ++code) {
    CHECK_MESSAGE(help.out.find("; " + std::to_string(code) + " ") != std::string::npos,
                  "--help lacks code ", code);
  }
}

TEST_CASE("the README's first command, run twice in a row, exits 0 both times") {
  std::string command;
  std::istringstream readme(file_bytes(kSource / "README.md"));
  for (std::string line; std::getline(readme, line);) {
    if (line.starts_with("scripts/setup.sh && ")) {
      command = line;
      break;
    }
  }
  REQUIRE_MESSAGE(!command.empty(), "README.md has no line starting with 'scripts/setup.sh && '");
  // setup.sh is what CI itself runs first (scripts/test.sh); the rest runs here, in a fresh folder
  // with the samples, as a new user's checkout has them.
  command.erase(0, std::string("scripts/setup.sh && ").size());
  const std::string bin = "build/docsift", built = shell_quote(DOCSIFT_BIN);
  for (std::size_t at = 0; (at = command.find(bin, at)) != std::string::npos; at += built.size()) {
    command.replace(at, bin.size(), built);
  }
  TempDir checkout;
  fs::create_directory_symlink(kSource / "samples", checkout / "samples");
  for (int time = 1; time <= 2; ++time) {
    const CliResult r = docsift::testing::run_shell("cd " + q(checkout.path()) + " && " + command);
    CHECK_MESSAGE(r.exit_code == 0, "run ", time, " of `", command, "` exited ", r.exit_code, ": ",
                  r.err);
  }
  CHECK(fs::exists(checkout / "results" / "predictions.csv"));
}
