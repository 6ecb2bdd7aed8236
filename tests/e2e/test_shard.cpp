// Scaling out: `run --shard K/N` and `--shard auto` (Slurm, Kubernetes), `docsift merge`, and the
// recipes in scripts/cluster/ (which docs/scaling.md links) run as they are, each merged result
// compared with one run over the same images.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/shard.h"
#include "docsift/error.h"
#include "docsift/journal/lock.h"
#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/model_stack.h"
#include "support/processes.h"
#include "support/summary_json.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::batch::parse_shard;
using docsift::batch::shard_from_environment;
using docsift::batch::shard_of;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::run_shell;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;
const fs::path kModel = kSource / "tests/fixtures/internvl/hf";

// The fixture model on the CPU, fast: what every run in this file uses, as a config file (the
// Kubernetes manifest passes --config) and as options.
const std::string kConfigYaml =
    "model: {device: cpu, dtype: float32, max_tiles: 2}\ngeneration: {max_new_tokens: 8}\n";
const std::string kFast = docsift::testing::fast_run_options({.max_new_tokens = 8, .quiet = true});

// An environment for shard_from_environment.
docsift::batch::Getenv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The first 12 samples, copied into `dir`: the batch the shards split.
void copy_samples(const fs::path& dir, int count = 12) {
  fs::create_directories(dir);
  std::vector<fs::path> pngs;
  for (const auto& e : fs::directory_iterator(kSource / "samples")) {
    if (e.path().extension() == ".png") pngs.push_back(e.path());
  }
  std::sort(pngs.begin(), pngs.end());
  REQUIRE(pngs.size() >= static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) fs::copy_file(pngs[i], dir / pngs[i].filename());
}

// predictions.csv of one plain run over `in` with the same settings: what a merge must reproduce.
std::string single_run_csv(const fs::path& in, const fs::path& out) {
  const auto r = run_docsift("run " + shell_quote(in.string()) + kFast + " --out " +
                             shell_quote(out.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return file_bytes(out / "predictions.csv");
}

// Runs each command through /bin/sh at the same time; returns their exit codes.
std::vector<int> run_all_at_once(const std::vector<std::string>& commands) {
  std::vector<pid_t> children;
  for (const auto& command : commands) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    children.push_back(child);
  }
  std::vector<int> codes;
  for (const pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

// Every file under `dir` with its bytes: to show that a merge changed nothing there.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = file_bytes(e.path());
  }
  return files;
}

}  // namespace

TEST_CASE("--shard K/N: parsed strictly, errors show the form") {
  const auto s = parse_shard("2/4");
  CHECK(s.index == 2);
  CHECK(s.count == 4);
  CHECK(s.folder_name() == "shard-2-of-4");
  for (const char* bad :
       {"", "2", "0/4", "5/4", "2/0", "-1/4", "2/4x", "a/b", "2//4", " 2/4", "1/100001"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_AS(parse_shard(bad), docsift::ConfigError);
  }
  try {
    parse_shard("2of4");
    FAIL("no error");
  } catch (const docsift::ConfigError& e) {
    CHECK(std::string(e.what()).find("expected K/N") != std::string::npos);
  }
}

TEST_CASE(
    "--shard auto: Slurm job arrays and Kubernetes Indexed Jobs, each bad variable is named") {
  // sbatch --array=1-4, task 3.
  auto s = shard_from_environment(std::nullopt, env_of({{"SLURM_ARRAY_TASK_ID", "3"},
                                                        {"SLURM_ARRAY_TASK_MIN", "1"},
                                                        {"SLURM_ARRAY_TASK_MAX", "4"},
                                                        {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  CHECK(s.index == 3);
  CHECK(s.count == 4);
  // --array=0-15:5 (tasks 0, 5, 10, 15): task 10 is shard 3 of 4; MIN and COUNT without MAX.
  s = shard_from_environment(std::nullopt, env_of({{"SLURM_ARRAY_TASK_ID", "10"},
                                                   {"SLURM_ARRAY_TASK_MIN", "0"},
                                                   {"SLURM_ARRAY_TASK_MAX", "15"},
                                                   {"SLURM_ARRAY_TASK_STEP", "5"}}));
  CHECK(s.index == 3);
  CHECK(s.count == 4);
  s = shard_from_environment(std::nullopt, env_of({{"SLURM_ARRAY_TASK_ID", "7"},
                                                   {"SLURM_ARRAY_TASK_MIN", "7"},
                                                   {"SLURM_ARRAY_TASK_COUNT", "2"}}));
  CHECK(s.index == 1);
  CHECK(s.count == 2);
  // With --shards N the task id is the shard: `sbatch --array=3` redoes shard 3 of 8 alone.
  s = shard_from_environment(8, env_of({{"SLURM_ARRAY_TASK_ID", "3"},
                                        {"SLURM_ARRAY_TASK_MIN", "3"},
                                        {"SLURM_ARRAY_TASK_MAX", "3"}}));
  CHECK(s.index == 3);
  CHECK(s.count == 8);
  // Kubernetes: JOB_COMPLETION_INDEX is 0-based.
  s = shard_from_environment(4, env_of({{"JOB_COMPLETION_INDEX", "0"}}));
  CHECK(s.index == 1);
  CHECK(s.count == 4);
  CHECK(s.source.find("JOB_COMPLETION_INDEX") != std::string::npos);

  const auto error_names = [](std::optional<int> shards, std::map<std::string, std::string> vars,
                              const std::string& name) {
    CAPTURE(name);
    try {
      shard_from_environment(shards, env_of(std::move(vars)));
      FAIL("no error");
    } catch (const docsift::ConfigError& e) {
      CAPTURE(std::string(e.what()));
      CHECK(std::string(e.what()).find(name) != std::string::npos);
    }
  };
  error_names(std::nullopt, {}, "SLURM_ARRAY_TASK_ID");
  error_names(std::nullopt, {}, "JOB_COMPLETION_INDEX");
  error_names(std::nullopt, {{"SLURM_ARRAY_TASK_ID", "2"}}, "SLURM_ARRAY_TASK_MIN");
  error_names(std::nullopt, {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}},
              "SLURM_ARRAY_TASK_MAX");
  error_names(std::nullopt, {{"SLURM_ARRAY_TASK_ID", "x2"}}, "SLURM_ARRAY_TASK_ID=\"x2\"");
  // --array=1,3,8: a list, not a range; MIN..MAX spans 8 tasks, COUNT says 3.
  error_names(std::nullopt,
              {{"SLURM_ARRAY_TASK_ID", "3"},
               {"SLURM_ARRAY_TASK_MIN", "1"},
               {"SLURM_ARRAY_TASK_MAX", "8"},
               {"SLURM_ARRAY_TASK_COUNT", "3"}},
              "SLURM_ARRAY_TASK_COUNT");
  error_names(
      std::nullopt,
      {{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"}},
      "SLURM_ARRAY_TASK_ID=9");
  error_names(4, {{"SLURM_ARRAY_TASK_ID", "0"}}, "SLURM_ARRAY_TASK_ID=0");
  error_names(std::nullopt, {{"JOB_COMPLETION_INDEX", "1"}}, "--shards");
  error_names(4, {{"JOB_COMPLETION_INDEX", "4"}}, "JOB_COMPLETION_INDEX=4");
  error_names(4, {{"JOB_COMPLETION_INDEX", "1"}, {"SLURM_ARRAY_TASK_ID", "1"}}, "both");

  // The command line says the same, with exit 2 and before any model is touched.
  const auto r = run_docsift(
      "run " + shell_quote((kSource / "samples").string()) + " --model /nonexistent --shard auto",
      "JOB_COMPLETION_INDEX=2");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--shards N") != std::string::npos);
  const auto shards_alone = run_docsift("run samples --model x --shard 1/2 --shards 2");
  CHECK(shards_alone.exit_code == 2);
  CHECK(shards_alone.err.find("--shards N goes with --shard auto") != std::string::npos);
}

TEST_CASE("shard_of: pinned values, even spread, independent of the other files") {
  // Pinned: a change would move files between the shard folders of runs already made. The
  // Python lines in docs/scaling.md give the same values.
  CHECK(shard_of("a.png", 4) == 3);
  CHECK(shard_of("scan-0001.png", 8) == 5);
  CHECK(shard_of("synthetic_invoice_001.png", 4) == 1);
  CHECK(shard_of("anything.png", 1) == 1);
  std::map<int, int> sizes;
  for (int i = 0; i < 10000; ++i)
    ++sizes[shard_of("scans/2026-11/page-" + std::to_string(i) + ".png", 8)];
  REQUIRE(sizes.size() == 8);
  for (const auto& [shard, size] : sizes) {
    CAPTURE(shard);
    CHECK(size > 1250 * 0.9);
    CHECK(size < 1250 * 1.1);
  }
}

TEST_CASE(
    "Kubernetes Indexed Job: the manifest's command lines for every index at once, merged = one "
    "run") {
  DOCSIFT_NEEDS_MODEL_STACK();
  const YAML::Node job =
      YAML::LoadFile((kSource / "scripts/cluster/docsift-indexed-job.yaml").string());
  REQUIRE(job["kind"].as<std::string>() == "Job");
  REQUIRE(job["spec"]["completionMode"].as<std::string>() == "Indexed");
  REQUIRE(job["spec"]["template"]["spec"]["restartPolicy"].as<std::string>() == "Never");
  const int completions = job["spec"]["completions"].as<int>();
  const auto command =
      job["spec"]["template"]["spec"]["containers"][0]["command"].as<std::vector<std::string>>();
  REQUIRE(command.at(0) == "docsift");
  const auto shards = std::find(command.begin(), command.end(), "--shards");
  REQUIRE(shards + 1 < command.end());
  CHECK(std::stoi(*(shards + 1)) == completions);  // --shards must equal completions

  // The pods' paths, here: /data is the shared volume, /models/... the model.
  TempDir tmp;
  const fs::path data = tmp / "data";
  copy_samples(data / "scans");
  write_text(data / "docsift.yaml", kConfigYaml);
  const auto local = [&](std::string arg) {
    if (arg == "docsift") return std::string(DOCSIFT_BIN);
    if (arg.rfind("/models/", 0) == 0) return kModel.string();
    if (arg.rfind("/data", 0) == 0) arg = data.string() + arg.substr(5);
    return arg;
  };
  std::string line;
  for (const auto& arg : command) line += shell_quote(local(arg)) + " ";
  std::vector<std::string> pods;
  for (int index = 0; index < completions; ++index) {
    pods.push_back("JOB_COMPLETION_INDEX=" + std::to_string(index) + " " + line + " 2>>" +
                   shell_quote((tmp / "pods.log").string()));
  }
  const auto codes = run_all_at_once(pods);
  INFO(file_bytes(tmp / "pods.log"));
  for (const int code : codes) CHECK(code == 0);
  std::set<std::string> recorded;
  for (int k = 1; k <= completions; ++k) {
    const fs::path folder =
        data / "results" / ("shard-" + std::to_string(k) + "-of-" + std::to_string(completions));
    for (const auto& rec : journal_lines(folder / "results.jsonl")) {
      CHECK(shard_of(rec["file"].get<std::string>(), completions) == k);
      CHECK(recorded.insert(rec["file"].get<std::string>()).second);
    }
    const auto summary = docsift::testing::read_summary(folder / "summary.json");
    CHECK(summary["shard"]["index"] == k);
    CHECK(summary["shard"]["scanned_all_shards"] == 12);
  }
  CHECK(recorded.size() == 12);

  // The merge Job's command (a shell line), then the comparison with one run.
  const YAML::Node merge_job =
      YAML::LoadFile((kSource / "scripts/cluster/docsift-merge-job.yaml").string());
  const auto merge = merge_job["spec"]["template"]["spec"]["containers"][0]["command"]
                         .as<std::vector<std::string>>();
  REQUIRE(merge.size() == 3);
  std::string merge_line = merge[2];
  REQUIRE(merge_line.rfind("docsift merge ", 0) == 0);
  merge_line = std::string(DOCSIFT_BIN) + merge_line.substr(7);
  for (std::size_t at; (at = merge_line.find(" /data/")) != std::string::npos;) {
    merge_line.replace(at + 1, 5, data.string());
  }
  const auto before = snapshot(data / "results");
  int status = std::system(merge_line.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const std::string merged_csv = file_bytes(data / "results/predictions.csv");
  CHECK(merged_csv == single_run_csv(data / "scans", tmp / "single"));
  CHECK(journal_lines(data / "results/results.jsonl").size() == 12);
  // Merging again gives the same bytes, and the shard folders were never changed.
  const std::string merged_journal = file_bytes(data / "results/results.jsonl");
  status = std::system(merge_line.c_str());
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(file_bytes(data / "results/results.jsonl") == merged_journal);
  CHECK(file_bytes(data / "results/predictions.csv") == merged_csv);
  auto after = snapshot(data / "results");
  for (const std::string_view merged_file : docsift::batch::out_files::kWritten)
    after.erase(std::string(merged_file));
  after.erase(std::string(docsift::batch::out_files::kLock));
  CHECK(after == before);
}

TEST_CASE(
    "Slurm array script: four tasks at once, one killed with -9 and re-run, merged = one run") {
  DOCSIFT_NEEDS_MODEL_STACK();
  TempDir tmp;
  copy_samples(tmp / "scans");
  const std::string single = single_run_csv(tmp / "scans", tmp / "single");
  // The biggest shard is the one killed, after its first record, so images are left to redo.
  std::map<int, int> sizes;
  int scans = 0;
  for (const auto& e : fs::directory_iterator(tmp / "scans")) {
    ++sizes[shard_of(e.path().filename().string(), 4)];
    ++scans;
  }
  REQUIRE(scans == 12);
  const int victim = std::max_element(sizes.begin(), sizes.end(), [](auto& a, auto& b) {
                       return a.second < b.second;
                     })->first;
  REQUIRE(sizes[victim] >= 3);

  const auto task = [&](int id) {
    return "SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
           " SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=4 "
           "SLURM_ARRAY_TASK_STEP=1 IN=" +
           shell_quote((tmp / "scans").string()) +
           " OUT=" + shell_quote((tmp / "results").string()) +
           " DOCSIFT=" + shell_quote(DOCSIFT_BIN) + " DOCSIFT_ARGS=" + shell_quote(kFast) +
           " bash " + shell_quote((kSource / "scripts/cluster/docsift-array.sbatch").string());
  };
  const fs::path victim_folder = tmp / "results" / ("shard-" + std::to_string(victim) + "-of-4");
  const pid_t child = docsift::testing::start_and_wait_for_journal(
      "env " + task(victim), victim_folder / "results.jsonl", 1);
  std::vector<std::string> others;
  for (int id = 1; id <= 4; ++id) {
    if (id != victim) others.push_back(task(id));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  const auto done_before = journal_lines(victim_folder / "results.jsonl").size();
  MESSAGE("shard " << victim << " killed after " << done_before << " of " << sizes[victim]
                   << " images");
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(done_before < static_cast<std::size_t>(sizes[victim]));
  for (const int code : run_all_at_once(others)) CHECK(code == 0);

  // Before the re-run, the merge says what is unfinished and which images are missing.
  const std::string merge = "merge " + shell_quote((tmp / "results").string()) +
                            "/shard-*-of-4 --out " + shell_quote((tmp / "results").string()) +
                            " --expect " + shell_quote((tmp / "scans").string());
  auto r = run_docsift(merge);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("unfinished: " + victim_folder.string()) != std::string::npos);
  CHECK(r.err.find("missing: ") != std::string::npos);
  CHECK(r.err.find("(shard " + std::to_string(victim) + " of 4)") != std::string::npos);

  // The task re-run (a requeue) resumes its journal; the merge then equals one run.
  CHECK(run_all_at_once({task(victim)}) == std::vector<int>{0});
  CHECK(journal_lines(victim_folder / "results.jsonl").size() ==
        static_cast<std::size_t>(sizes[victim]));
  r = run_docsift(merge);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(file_bytes(tmp / "results/predictions.csv") == single);
  const auto summary = docsift::testing::read_summary(tmp / "results/summary.json");
  CHECK(summary["complete"] == true);
  CHECK(summary["images"]["ok"] == 12);
  CHECK(summary["missing"].empty());
}

TEST_CASE("GNU parallel on one host: the script, one shard per GPU slot, merged = one run") {
  DOCSIFT_NEEDS_MODEL_STACK();
  TempDir tmp;
  copy_samples(tmp / "scans");
  const auto r =
      run_shell("IN=" + shell_quote((tmp / "scans").string()) +
                " OUT=" + shell_quote((tmp / "results").string()) + " GPUS=3 DOCSIFT=" +
                shell_quote(DOCSIFT_BIN) + " DOCSIFT_ARGS=" + shell_quote(kFast) + " bash " +
                shell_quote((kSource / "scripts/cluster/shards-on-one-host.sh").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (int k = 1; k <= 3; ++k)
    CHECK(fs::exists(tmp / "results" / ("shard-" + std::to_string(k) + "-of-3/summary.json")));
  CHECK(file_bytes(tmp / "results/predictions.csv") ==
        single_run_csv(tmp / "scans", tmp / "single"));
}

TEST_CASE(
    "merge refuses mixed configs, folders given twice, a busy folder and a run's own journal, and "
    "reports duplicates") {
  DOCSIFT_NEEDS_MODEL_STACK();
  TempDir tmp;
  copy_samples(tmp / "scans", 6);
  const std::string in = shell_quote((tmp / "scans").string());
  const auto out = [&](const std::string& name) { return shell_quote((tmp / name).string()); };
  for (int k = 1; k <= 2; ++k) {
    const auto r =
        run_docsift("run " + in + kFast + " --shard " + std::to_string(k) + "/2 --out " + out("a"));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  // Shard 2 again with another max_new_tokens: another config hash.
  REQUIRE(run_docsift("run " + in + kFast +
                      " --set generation.max_new_tokens=9 --shard 2/2 --out " + out("b"))
              .exit_code == 0);
  const std::string s1 = out("a") + "/shard-1-of-2", s2 = out("a") + "/shard-2-of-2",
                    other = out("b") + "/shard-2-of-2";

  auto r = run_docsift("merge " + s1 + " " + other + " --out " + out("m"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("different configurations") != std::string::npos);
  CHECK(r.err.find((tmp / "a/shard-1-of-2").string() + " (config ") != std::string::npos);
  CHECK(r.err.find((tmp / "b/shard-2-of-2").string() + " (config ") != std::string::npos);
  CHECK(!fs::exists(tmp / "m"));  // a refused merge leaves nothing behind, not even its lock
  r = run_docsift("merge " + s1 + " " + other + " --out " + out("m") + " --allow-config-change");
  CHECK(r.exit_code == 0);
  CHECK(docsift::testing::read_summary(tmp / "m/summary.json")["config_hashes"].size() == 2);

  r = run_docsift("merge " + s1 + " " + s1 + "/ --out " + out("m"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("given twice") != std::string::npos);
  r = run_docsift("merge " + s2 + " " + s2 + " --out " + out("m"));
  CHECK(r.exit_code == 2);
  // The same shard from two batches (same config): refused as one shard twice.
  REQUIRE(run_docsift("run " + in + kFast + " --shard 2/2 --out " + out("c")).exit_code == 0);
  r = run_docsift("merge " + s1 + " " + s2 + " " + out("c") + "/shard-2-of-2 --out " + out("m"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("shard 2 of 2 is in both") != std::string::npos);
  // Different shard counts.
  REQUIRE(run_docsift("run " + in + kFast + " --shard 1/3 --out " + out("d")).exit_code == 0);
  r = run_docsift("merge " + s1 + " " + out("d") + "/shard-1-of-3 --out " + out("m"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("of 3") != std::string::npos);

  // An image in two folders: a plain run over the same images overlaps every shard.
  REQUIRE(run_docsift("run " + in + kFast + " --out " + out("plain")).exit_code == 0);
  r = run_docsift("merge " + s1 + " " + s2 + " " + out("plain") + " --out " + out("m"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("duplicate: synthetic_invoice_001.png: recorded in " +
                   (tmp / "a/shard-1-of-2").string() + " and " + (tmp / "plain").string()) !=
        std::string::npos);
  CHECK(journal_lines(tmp / "m/results.jsonl").size() ==
        6);  // each image once: the first folder's record
  CHECK(docsift::testing::read_summary(tmp / "m/summary.json")["duplicates"].size() == 6);

  // --out inside a shard folder, or a folder that holds a run's journal: refused, nothing changed.
  const auto shard_files = snapshot(tmp / "a");
  r = run_docsift("merge " + s1 + " " + s2 + " --out " + s1 + "/merged");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("never changes its input folders") != std::string::npos);
  r = run_docsift("merge " + s1 + " " + s2 + " --out " + out("plain"));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("holds the journal of a docsift run") != std::string::npos);
  CHECK(snapshot(tmp / "a") == shard_files);
  // A shard whose run still holds its lock.
  {
    const docsift::journal::OutputLock busy(tmp / "a/shard-1-of-2");
    r = run_docsift("merge " + s1 + " " + s2 + " --out " + out("m2"));
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("docsift run (pid " + std::to_string(::getpid()) +
                     ") is still writing here") != std::string::npos);
  }
  CHECK(!fs::exists(tmp / "m2"));
  // Not an output folder.
  r = run_docsift("merge " + in + " --out " + out("m2"));
  CHECK(r.exit_code == 2);  // an input that is not there: the journal
  CHECK(r.err.find("no results.jsonl") != std::string::npos);
  // The clean merge of both shards, with --expect over a folder with one more image: a gap.
  fs::copy_file(kSource / "samples/synthetic_invoice_020.png",
                tmp / "scans/synthetic_invoice_020.png");
  r = run_docsift("merge " + s1 + " " + s2 + " --out " + out("m3") + " --expect " + in);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("missing: synthetic_invoice_020.png: no folder recorded it (shard " +
                   std::to_string(shard_of("synthetic_invoice_020.png", 2)) + " of 2)") !=
        std::string::npos);
  // Only one of the two shards: the other is named.
  r = run_docsift("merge " + s1 + " --out " + out("m4"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("shard 2 of 2 is not among the folders") != std::string::npos);
}

TEST_CASE("docs/scaling.md links every recipe in scripts/cluster/ (4 files)") {
  const std::string doc = file_bytes(kSource / "docs/scaling.md");
  int recipes = 0;
  for (const auto& e : fs::directory_iterator(kSource / "scripts/cluster")) {
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    CHECK(doc.find("](../scripts/cluster/" + name + ")") != std::string::npos);
    ++recipes;
  }
  CHECK(recipes == 4);
}

TEST_CASE(
    "merge orders a document's pages by number, as the run recorded them (page 2 before page 10)") {
  TempDir tmp;
  // Two shard folders as runs leave them, written here: a 12-page PDF's pages split between them.
  for (int k = 1; k <= 2; ++k) {
    const fs::path folder = tmp / ("shard-" + std::to_string(k) + "-of-2");
    fs::create_directories(folder);
    std::string journal;
    int records = 0;
    for (int page = k; page <= 12; page += 2) {
      const nlohmann::json rec = {
          {"file", "doc.pdf#page=" + std::to_string(page)},
          {"status", "ok"},
          {"tier", "ocr"},
          {"fields", {{"TOTAL", std::string("$").append(std::to_string(page)).append(".00")}}},
          {"tokens", {{"generated", 0}}},
          {"timings_s", {{"total", 0.1}}},
          {"memory", nlohmann::json::object()},
          {"config_hash", "abc"}};
      journal += rec.dump() + "\n";
      ++records;
    }
    write_text(folder / "results.jsonl", journal);
    write_text(folder / "predictions.csv", "image_file,TOTAL\n");
    write_text(folder / "summary.json",
               nlohmann::json{{"images", {{"scanned", 1}, {"ok", records}, {"failed", 0}}},
                              {"shard", {{"index", k}, {"count", 2}}},
                              {"config_hash", "abc"},
                              {"interrupted", nullptr}}
                   .dump());
  }
  const auto r = run_docsift("merge " + shell_quote((tmp / "shard-1-of-2").string()) + " " +
                             shell_quote((tmp / "shard-2-of-2").string()) + " --out " +
                             shell_quote((tmp / "m").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> order;
  for (const auto& rec : journal_lines(tmp / "m/results.jsonl")) order.push_back(rec["file"]);
  REQUIRE(order.size() == 12);
  for (int page = 1; page <= 12; ++page)
    CHECK(order[page - 1] == "doc.pdf#page=" + std::to_string(page));
  const std::string csv = file_bytes(tmp / "m/predictions.csv");
  CHECK(csv.find("doc.pdf#page=2,$2.00") < csv.find("doc.pdf#page=10,$10.00"));
}
