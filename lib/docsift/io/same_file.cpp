#include "docsift/io/same_file.h"

#include <sys/stat.h>

#include <optional>
#include <system_error>

#include "docsift/io/scan.h"

namespace docsift::io {
namespace {

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev, st.st_ino};
}

}  // namespace

bool is_within(const std::filesystem::path& inner, const std::filesystem::path& outer) {
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::weakly_canonical(
                                  std::filesystem::absolute(inner, ec), ec),
                              b = std::filesystem::weakly_canonical(
                                  std::filesystem::absolute(outer, ec), ec);
  auto ai = a.begin();
  for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
    if (bi->empty()) continue;  // a trailing separator
    if (ai == a.end() || *ai != *bi) return false;
  }
  return true;
}

void ReadFiles::add(const std::filesystem::path& path, const std::string& role) {
  if (const auto id = identity_of(path)) read_.push_back({*id, role, path});
}

void ReadFiles::add_folder(const std::filesystem::path& dir, const std::string& role,
                           bool pages_only) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(dir, ec);
  if (!ec && std::filesystem::is_directory(canonical, ec))
    folders_.push_back({canonical, role, pages_only});
}

std::string ReadFiles::role_of(const std::filesystem::path& path) const {
  const auto id = identity_of(path);
  if (!id) return "";
  for (const Entry& e : read_) {
    if (e.id == *id) return e.role + " (" + e.path.string() + ")";
  }
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) return "";
  for (const Folder& f : folders_) {
    if (is_within(real, f.dir) && (!f.pages_only || has_image_extension(real))) {
      return "a file in " + f.role + " (" + f.dir.string() + ")";
    }
  }
  return "";
}

}  // namespace docsift::io
