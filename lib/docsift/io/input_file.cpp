#include "docsift/io/input_file.h"

#include <cerrno>
#include <cstring>
#include <system_error>

#include "docsift/error.h"

namespace docsift::io {

void throw_input_error(const std::filesystem::path& path, const std::string& role, int error) {
  const std::string where = (role.empty() ? "" : role + " ") + path.string();
  if (error == ENOENT || error == ENOTDIR) throw InputMissingError(where + ": no such file");
  throw InputUnreadableError(
      where + ": cannot read it: " + std::strerror(error) +
      (error == EACCES ? " (check its permissions and the user docsift runs as)" : ""));
}

std::ifstream open_input(const std::filesystem::path& path, const std::string& role) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw_input_error(path, role, EISDIR);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  // std::ifstream opens with fopen/open underneath, which leaves errno set on failure.
  if (!in) throw_input_error(path, role, errno != 0 ? errno : EIO);
  return in;
}

}  // namespace docsift::io
