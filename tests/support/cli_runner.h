// Runs the built docsift binary as a user would and captures exit code, stdout and stderr.
#pragma once

#include <filesystem>
#include <string>

namespace docsift::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary's path and run through /bin/sh (quote paths yourself).
// `env`: shell assignments put before the command, e.g. "DOCSIFT_FAULTS=oom@prefill"; `cwd`: the
// working directory to start it in (default: the test's).
CliResult run_docsift(const std::string& args, const std::string& env = "",
                      const std::string& cwd = "");

// Runs `command` through /bin/sh with stdin from /dev/null and captures it the same way.
CliResult run_shell(const std::string& command);

// Wraps a string in single quotes for /bin/sh.
std::string shell_quote(const std::string& s);

// A path wrapped so for /bin/sh: the e2e tests' command lines are mostly paths.
std::string q(const std::filesystem::path& p);

}  // namespace docsift::testing
