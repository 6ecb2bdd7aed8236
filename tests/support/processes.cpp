#include "support/processes.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace docsift::testing {

pid_t start_shell(const std::string& command) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return child;
}

std::size_t complete_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return 0;
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
}

pid_t start_and_wait_for_journal(const std::string& command, const std::filesystem::path& journal,
                                 std::size_t lines) {
  const pid_t child = start_shell(command);
  wait_until([&] { return complete_lines(journal) >= lines; }, 120);
  return child;
}

namespace {

// A /proc file's bytes, or "" where its process left while it was read: the read then fails with
// ESRCH, which libstdc++'s filebuf throws on, and the workers the tests watch exit at any moment.
std::string proc_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buf[4096];
  ssize_t got;
  while ((got = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(got));
  ::close(fd);
  return got < 0 ? "" : out;
}

}  // namespace

std::vector<pid_t> workers_for(const std::filesystem::path& out) {
  std::vector<pid_t> pids;
  const std::string wanted = std::string("worker") + '\0' + "--for" + '\0' + out.string() + '\0';
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = proc_file(entry.path() / "cmdline");
    if (cmdline.find(wanted) == std::string::npos) continue;
    const std::string text = proc_file(entry.path() / "stat");
    if (text.empty()) continue;  // gone since its command line was read
    // The state follows the command name's closing parenthesis: "pid (comm) Z ...".
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') continue;
    pids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace docsift::testing
