#include "support/processes.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

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

}  // namespace docsift::testing
