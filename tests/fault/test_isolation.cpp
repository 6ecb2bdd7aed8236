// `docsift run --isolate worker` end to end on the fixture model, with fault injection: crashes,
// hangs, recycling, kill -9 of the worker and of the supervisor. Every batch must record each
// image exactly once and leave no process behind.
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "docsift/batch/supervisor.h"
#include "docsift/device/cuda_backend.h"
#include "docsift/device/devices.h"
#include "docsift/device/footprint.h"
#include "support/cli_runner.h"
#include "support/fast_run.h"
#include "support/fixture_files.h"
#include "support/processes.h"
#include "support/skip.h"
#include "support/summary_json.h"
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
const fs::path kBuild = fs::path(DOCSIFT_BIN).parent_path();
const std::string kFast =
    docsift::testing::fast_run_options({.fields_file = true, .max_new_tokens = 8});
const std::string kSamples = shell_quote((kSource / "samples").string());

std::map<std::string, nlohmann::json> by_file(const std::vector<nlohmann::json>& records) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& r : records) {
    CHECK_MESSAGE(out.emplace(r["file"].get<std::string>(), r).second,
                  "recorded twice: " << r["file"]);
  }
  return out;
}

// The CUDA toolkit's stub driver library, if installed: a stand-in libcuda.so.1 that the CUDA
// libraries load as they would the real driver. Returns an LD_LIBRARY_PATH assignment, or "".
std::string stub_driver_env(const fs::path& dir) {
  for (const char* stub : {"/usr/local/cuda/lib64/stubs/libcuda.so",
                           "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so"}) {
    if (fs::exists(stub)) {
      fs::create_symlink(stub, dir / "libcuda.so.1");
      // Ahead of the folders the environment already names (where docsift's own libraries may be).
      std::string folders = dir.string();
      if (const char* path = std::getenv("LD_LIBRARY_PATH"); path != nullptr && *path != '\0') {
        folders += ':';
        folders += path;
      }
      return "LD_LIBRARY_PATH=" + shell_quote(folders);
    }
  }
  return "";
}

}  // namespace

TEST_CASE("cuda_footprint sees a mapped CUDA driver library") {
  TempDir dir;
  const std::string env = stub_driver_env(dir.path());
  if (env.empty())
    DOCSIFT_SKIP("no CUDA stub driver library on this machine: the control cannot run");
  // On a GPU machine tests/main.cpp's plugin load has mapped the real driver already.
  if (docsift::device::cuda_footprint().driver_library)
    DOCSIFT_SKIP("the driver is mapped already (a GPU machine): the control cannot run");
  void* handle = ::dlopen((dir.path() / "libcuda.so.1").c_str(), RTLD_LAZY | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  CHECK(docsift::device::cuda_footprint().driver_library);
  CHECK_FALSE(docsift::device::cuda_footprint().gpu_devices);  // a library, no device opened
}

TEST_CASE("only a process that asks for a GPU loads LibTorch's CUDA libraries and the driver") {
  std::string why;
  if (docsift::device::load_cuda_backend(&why) == nullptr) DOCSIFT_SKIP("no CUDA plugin: " << why);
  TempDir stub, out;
  const std::string env = stub_driver_env(stub.path());
  if (env.empty()) DOCSIFT_SKIP("no CUDA stub driver library on this machine");
  // The dynamic loader's own trace of every library a process loads, and who asked for it.
  const std::string trace = env + " LD_DEBUG=files";
  // `--version` lists the GPUs, so it loads the plugin: LibTorch's CUDA libraries, and through
  // cuBLASLt the (stub) driver.
  const auto version = run_docsift("--version", trace);
  REQUIRE_MESSAGE(version.exit_code == 0, version.err);
  CHECK(version.err.find("file=" + (kBuild / "libdocsift_cuda.so").string()) != std::string::npos);
  CHECK(version.err.find("file=libtorch_cuda.so") != std::string::npos);
  CHECK(version.err.find("file=libcuda.so.1") != std::string::npos);
  // A CPU run loads neither, and neither does the supervisor of an isolated run (previous test).
  const auto cpu = run_docsift(
      "run " + kSamples + kFast + " --limit 1 --quiet --out " + shell_quote(out.path().string()),
      trace);
  REQUIRE_MESSAGE(cpu.exit_code == 0,
                  cpu.err.substr(cpu.err.size() > 4000 ? cpu.err.size() - 4000 : 0));
  CHECK(cpu.err.find("libdocsift_cuda") == std::string::npos);
  CHECK(cpu.err.find("libtorch_cuda") == std::string::npos);
  CHECK(cpu.err.find("libcuda.so") == std::string::npos);
}

TEST_CASE(
    "--isolate worker: crash retried, crash twice failed, hang timed out, recycling, same results "
    "as in process") {
  TempDir in_process, isolated, stub;
  const auto plain = run_docsift("run " + kSamples + kFast + " --limit 7 --quiet --out " +
                                 shell_quote(in_process.path().string()));
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  const auto r = run_docsift(
      "run " + kSamples + kFast +
          " --limit 7 --isolate worker --set memory.worker.timeout_s=3 --set "
          "memory.worker.recycle_after_images=2 --out " +
          shell_quote(isolated.path().string()),
      // With the stub driver on the library path, as on a machine with the driver installed.
      stub_driver_env(stub.path()) +
          " DOCSIFT_FAULTS=crash@image=2,crash@image=3:attempt=1,crash@image=3:attempt=2,hang@"
          "image=4");
  CHECK(r.exit_code == 1);  // two images failed, as injected
  const auto want = by_file(journal_lines(in_process.path() / "results.jsonl"));
  const auto got = by_file(journal_lines(isolated.path() / "results.jsonl"));
  REQUIRE(got.size() == 7);
  int compared = 0;
  for (const auto& [file, rec] : got) {
    CAPTURE(file);
    const auto& w = rec["worker"];
    if (file == "synthetic_invoice_003.png") {
      CHECK(rec["status"] == "failed");
      CHECK(rec["error"].get<std::string>().find(
                "crashed on this image twice: killed by signal 6 (SIGABRT)") != std::string::npos);
    } else if (file == "synthetic_invoice_004.png") {
      CHECK(rec["status"] == "failed");
      CHECK(rec["error"].get<std::string>().find("timed out after 3 s") != std::string::npos);
      CHECK(w["timed_out"] == true);
    } else {
      REQUIRE(rec["status"] == "ok");
      // The same fields and text as the in-process run.
      CHECK(rec["raw_response"] == want.at(file)["raw_response"]);
      CHECK(rec["fields"] == want.at(file)["fields"]);
      ++compared;
      if (file == "synthetic_invoice_002.png") {
        CHECK(w["attempt"] == 2);
        CHECK(w["crashes"][0] == "killed by signal 6 (SIGABRT)");
      }
    }
  }
  CHECK(compared == 5);
  const auto summary = docsift::testing::read_summary(isolated.path() / "summary.json");
  const auto& iso = summary["isolation"];
  CHECK(iso["mode"] == "worker");
  CHECK(iso["crashes"] == 3);
  CHECK(iso["timeouts"] == 1);
  CHECK(iso["recycles"] == 1);  // after images 5 and 6 in one worker
  // The supervisor mapped no CUDA driver and opened no GPU device, with a driver library (the
  // stub) on its library path, where a process that loads the CUDA plugin maps it (test above).
  CHECK(iso["supervisor_mapped_libcuda"] == false);
  CHECK(iso["supervisor_mapped_gpu_devices"] == false);
  CHECK(r.err.find("worker: worker") != std::string::npos);
  CHECK(workers_for(isolated.path()).empty());
}

TEST_CASE("--isolate worker: a memory trigger recycles the worker between images") {
  TempDir out;
  // Any worker holds more than 1 MB of RSS: recycled after every image but the last.
  const auto r = run_docsift(
      "run " + kSamples + kFast +
      " --limit 3 --isolate worker --set memory.worker.recycle_above_mb=1 --quiet --out " +
      shell_quote(out.path().string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["isolation"]["recycles"] == 2);
  CHECK(summary["isolation"]["workers_started"] == 3);
  CHECK(journal_lines(out.path() / "results.jsonl").size() == 3);
  CHECK(workers_for(out.path()).empty());
}

TEST_CASE(
    "--isolate worker: kill -9 of the worker mid-batch, then of the supervisor, --resume "
    "completes") {
  TempDir out;
  const fs::path journal = out.path() / "results.jsonl";
  const std::string command = std::string(DOCSIFT_BIN) + " run " + kSamples + kFast +
                              " --limit 8 --isolate worker --quiet --out " +
                              shell_quote(out.path().string());
  pid_t supervisor = start_shell(command);
  REQUIRE(wait_until([&] { return journal_lines(journal).size() >= 1; }, 120));
  auto workers = workers_for(out.path());
  REQUIRE(workers.size() == 1);
  ::kill(workers[0], SIGKILL);
  int status = 0;
  ::waitpid(supervisor, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // the image in flight was retried in a fresh worker
  auto records = by_file(journal_lines(journal));
  CHECK(records.size() == 8);
  for (const auto& [file, rec] : records) CHECK(rec["status"] == "ok");
  CHECK(workers_for(out.path()).empty());

  // The supervisor itself: its worker must follow it within a second.
  TempDir second;
  const std::string again = std::string(DOCSIFT_BIN) + " run " + kSamples + kFast +
                            " --limit 8 --isolate worker --quiet --out " +
                            shell_quote(second.path().string());
  supervisor = start_shell(again);
  REQUIRE(
      wait_until([&] { return journal_lines(second.path() / "results.jsonl").size() >= 1; }, 120));
  REQUIRE(workers_for(second.path()).size() == 1);
  ::kill(supervisor, SIGKILL);
  ::waitpid(supervisor, &status, 0);
  CHECK(wait_until([&] { return workers_for(second.path()).empty(); }, 1.0));
  const auto resumed = run_docsift("run " + kSamples + kFast +
                                   " --limit 8 --isolate worker --resume --quiet --out " +
                                   shell_quote(second.path().string()));
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const auto all = by_file(journal_lines(second.path() / "results.jsonl"));
  CHECK(all.size() >= 8);
  CHECK(workers_for(second.path()).empty());
}

TEST_CASE(
    "--isolate worker: a worker killed while starting is started again with backoff, then the "
    "batch completes") {
  TempDir out;
  // The first worker dies twice while starting (as the OOM killer would), the third try loads.
  const auto r = run_docsift("run " + kSamples + kFast + " --limit 3 --isolate worker --out " +
                                 shell_quote(out.path().string()),
                             "DOCSIFT_FAULTS=crash@startup:attempt=1,crash@startup:attempt=2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(journal_lines(out / "results.jsonl").size() == 3);
  CHECK(r.err.find("while starting; trying again in 0.5 s (2 of 4)") != std::string::npos);
  CHECK(r.err.find("while starting; trying again in 1.0 s (3 of 4)") != std::string::npos);
  const auto summary = docsift::testing::read_summary(out / "summary.json");
  CHECK(summary["isolation"]["workers_started"] == 3);
}

TEST_CASE(
    "--isolate worker: no worker starts after pages were journaled: exit 5, summary, resume hint, "
    "its stderr") {
  TempDir out;
  // The worker that replaces a recycled one (for page 3) dies on every try.
  const std::string run = "run " + kSamples + kFast +
                          " --limit 4 --isolate worker --set memory.worker.recycle_after_images=2 "
                          "--set memory.worker.start_retries=1 --out " +
                          shell_quote(out.path().string());
  const auto r = run_docsift(
      run, "DOCSIFT_FAULTS=crash@startup:image=3:attempt=1,crash@startup:image=3:attempt=2");
  CHECK(r.exit_code == 5);
  CHECK(r.err.find("while starting; gave up after 2 tries (memory.worker.start_retries)") !=
        std::string::npos);
  CHECK(r.err.find("its last stderr: ") != std::string::npos);
  CHECK(r.err.find("injected fault crash@startup:image=3:attempt=2") != std::string::npos);
  CHECK(r.err.find("--resume") != std::string::npos);
  CHECK(journal_lines(out / "results.jsonl").size() == 2);
  const auto summary = docsift::testing::read_summary(out / "summary.json");
  CHECK(summary["interrupted"].get<std::string>().find("gave up") != std::string::npos);
  CHECK(summary["images"]["ok"] == 2);
  // The fault is gone: --resume goes on (its --limit 4 counts this run's pages: 2 to 6).
  const auto resumed = run_docsift(run + " --resume");
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(journal_lines(out / "results.jsonl").size() == 6);
}

TEST_CASE(
    "--isolate worker: a worker that cannot start for a real reason (a broken checkpoint) stops "
    "the run at once") {
  TempDir model, out;
  for (const auto& entry : fs::directory_iterator(kSource / "tests/fixtures/internvl/hf")) {
    fs::copy(entry.path(), model / entry.path().filename(), fs::copy_options::recursive);
  }
  docsift::testing::write_text(model / "model.safetensors", "not a safetensors file");
  const auto r =
      run_docsift("run " + kSamples + " --model " + shell_quote(model.path().string()) +
                  " --device cpu --set model.dtype=float32 --limit 2 --isolate worker --out " +
                  shell_quote(out.path().string()));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("model.safetensors") != std::string::npos);
  CHECK(r.err.find("trying again") == std::string::npos);  // no retry: it would fail the same way
}

TEST_CASE(
    "worker isolation: the supervisor starts the command the app gives, the tag after its "
    "arguments") {
  docsift::config::Config cfg;
  cfg.memory.worker.start_retries = 0;
  // The batch layer names no subcommand of its own: without a command there is no worker to start.
  CHECK_THROWS_AS(docsift::batch::WorkerSupervisor(cfg, {}, "tag", [](const std::string&) {}),
                  docsift::ConfigError);
  // A "worker" that says what it was started as, and dies before it is ready. This process has few
  // files open, so the worker's stderr file may be fd 3 or 4, where the pipes go: it must reach 2.
  docsift::batch::WorkerSupervisor supervisor(
      cfg, {"/bin/sh", {"sh", "-c", "echo \"worker for $0\" >&2"}}, "the-run-folder",
      [](const std::string&) {});
  CHECK_THROWS_WITH_AS(supervisor.read({"page.png", "", 0, 1, nullptr, false}),
                       doctest::Contains("its last stderr: worker for the-run-folder"),
                       docsift::batch::WorkerStartError);
}

TEST_CASE("crash and hang faults without worker isolation are a usage error") {
  TempDir out;
  const auto r = run_docsift(
      "run " + kSamples + kFast + " --limit 1 --out " + shell_quote(out.path().string()),
      "DOCSIFT_FAULTS=crash@image=1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("crash and hang faults need worker isolation") != std::string::npos);
}

TEST_CASE(
    "--isolate worker: SIGTERM to the supervisor stops and reaps the worker, exit 5, --resume "
    "completes") {
  TempDir out;
  const fs::path journal = out.path() / "results.jsonl";
  const std::string command = std::string(DOCSIFT_BIN) + " run " + kSamples + kFast +
                              " --limit 6 --isolate worker --quiet --out " +
                              shell_quote(out.path().string());
  const pid_t supervisor = start_shell(command);
  REQUIRE(wait_until([&] { return journal_lines(journal).size() >= 1; }, 120));
  ::kill(supervisor, SIGTERM);
  int status = 0;
  ::waitpid(supervisor, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);  // stopped; the journal holds every finished image
  CHECK(workers_for(out.path()).empty());
  const auto before = journal_lines(journal).size();
  CHECK(before < 6);
  const auto resumed =
      run_docsift("run " + kSamples + kFast + " --limit " + std::to_string(6 - before) +
                  " --isolate worker --resume --quiet --out " + shell_quote(out.path().string()));
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(by_file(journal_lines(journal)).size() == 6);
}
