#include "support/cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"

namespace docsift::testing {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string q(const std::filesystem::path& p) { return shell_quote(p.string()); }

CliResult run_shell(const std::string& command) {
  TempDir dir;
  const auto out = dir / "stdout";
  const auto err = dir / "stderr";
  const std::string line = "{ " + command + "\n} >" + shell_quote(out.string()) + " 2>" +
                           shell_quote(err.string()) + " </dev/null";
  const int status = std::system(line.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CliResult run_docsift(const std::string& args, const std::string& env, const std::string& cwd) {
  return run_shell((cwd.empty() ? std::string() : "cd " + shell_quote(cwd) + " && ") +
                   (env.empty() ? std::string() : env + " ") + shell_quote(DOCSIFT_BIN) + " " +
                   args);
}

}  // namespace docsift::testing
