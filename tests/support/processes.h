// Background processes for the tests that stop a run part-way (kill -9, SIGTERM): start a shell
// command, wait for a condition such as "the journal has N records".
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace docsift::testing {

// Starts `command` through /bin/sh in the background, exec'd (so the pid is the command's, for
// kill and waitpid: no leading VAR=value assignments, use `env`); returns its pid.
pid_t start_shell(const std::string& command);

// Polls `pred` every 5 ms until it holds or `seconds` pass; returns its last answer.
template <class Pred>
bool wait_until(Pred pred, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// The number of complete ('\n'-ended) lines in `path`; 0 when it cannot be read. A line being
// written is not counted (journal_lines would fail to parse it).
std::size_t complete_lines(const std::filesystem::path& path);

// start_shell(command), then waits until `journal` has at least `lines` complete lines or two
// minutes passed; returns the pid. The caller checks the journal (it may have fewer lines).
pid_t start_and_wait_for_journal(const std::string& command, const std::filesystem::path& journal,
                                 std::size_t lines);

// Live (not zombie) processes whose command line is `docsift worker --for OUT`, by pid.
std::vector<pid_t> workers_for(const std::filesystem::path& out);

}  // namespace docsift::testing
