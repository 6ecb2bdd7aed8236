#include "docsift/html_report/report_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <system_error>

#include "docsift/error.h"
#include "docsift/html_report/html.h"
#include "docsift/io/output_file.h"
#include "docsift/io/same_file.h"

namespace docsift::html_report {
namespace fs = std::filesystem;

namespace {

// A folder docsift creates or writes into must be a real folder, never a link to one elsewhere.
void refuse_linked_folder(const fs::path& dir, const std::string& what) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir, ec);
  if (fs::is_symlink(status)) {
    throw FileError(
        dir.string() + ": " + what +
        " is a symbolic link; docsift never writes through links. Choose another --out");
  }
  if (fs::exists(status) && !fs::is_directory(status)) {
    throw FileError(dir.string() + ": " + what +
                    " is there and is not a folder. Choose another --out");
  }
}

// A folder with files in it that no report wrote: the user's, never overwritten.
void refuse_foreign_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  if (fs::exists(fs::symlink_status(dir / kMarker, ec))) {
    if (!fs::is_regular_file(fs::symlink_status(dir / kMarker, ec))) {
      throw FileError((dir / kMarker).string() +
                      ": is not a regular file; docsift never writes through links");
    }
    return;
  }
  fs::directory_iterator it(dir, ec);
  if (ec) throw FileError(dir.string() + ": cannot read the folder: " + ec.message());
  if (it != fs::directory_iterator()) {
    throw ConfigError(
        dir.string() + ": holds files and no earlier report (no " + std::string(kMarker) +
        "); give --out a new or empty folder, so that nothing of yours is overwritten");
  }
}

void make_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(dir.string() + ": cannot create the folder: " + ec.message());
}

}  // namespace

ReportFolder::ReportFolder(const fs::path& out, const std::vector<fs::path>& inputs) : dir_(out) {
  refuse_linked_folder(out, "the report's folder");
  for (const fs::path& input : inputs) {
    if (io::is_within(out, input)) {
      throw FileError(
          out.string() + ": is, or is inside, the folder " + input.string() +
          " the report reads; the report never writes where it reads. Choose another --out");
    }
  }
  refuse_foreign_folder(out);
  make_folder(out);
  for (const std::string_view sub : {kPagesDir, kImagesDir}) {
    refuse_linked_folder(out / sub, std::string(sub) + "/");
    make_folder(out / sub);
  }
  write(std::string(kMarker), "docsift report\n");
}

void ReportFolder::write(const fs::path& relative, const std::string& data) {
  const fs::path path = dir_ / relative;
  const fs::path tmp = path.string() + ".tmp";
  // A temporary left by a report that was stopped: removing a name never touches what a link at it
  // points to.
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) {
    throw FileError(tmp.string() +
                    ": cannot remove an earlier temporary file: " + io::errno_text());
  }
  io::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    const int error = errno;
    const std::string why = io::errno_text();
    if (error == ENOSPC || error == EDQUOT)
      throw OutputWriteError(tmp.string() + ": cannot create: " + why);
    throw FileError(tmp.string() + ": cannot create: " + why);
  }
  // A write that fails once begun (a full disk, a file-size limit) leaves no temporary behind and
  // the file it would replace as it was: exit 5, the same command again finishes the report.
  try {
    io::write_all(fd, data, tmp);
  } catch (const FileError& e) {
    fd.reset();
    ::unlink(tmp.c_str());
    throw OutputWriteError(std::string(e.what()) +
                           "; the report is unfinished, run the same command again");
  }
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = io::errno_text();
    ::unlink(tmp.c_str());
    throw OutputWriteError(path.string() + ": cannot write: " + why +
                           "; the report is unfinished, run the same command again");
  }
  bytes_ += data.size();
  const std::lock_guard<std::mutex> lock(mutex_);
  written_.insert(relative.generic_string());
}

void ReportFolder::remove_stale() {
  for (const std::string_view sub : {kPagesDir, kImagesDir}) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_ / sub, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string relative = std::string(sub) + "/" + name;
      // Only the names a report writes (d0001.html, d0001.jpg, d0001.full.jpg): anything else
      // there is left alone.
      const bool ours = name.size() > 5 && name[0] == 'd' &&
                        std::isdigit(static_cast<unsigned char>(name[1])) &&
                        (name.ends_with(".html") || name.ends_with(".jpg"));
      if (ours && written_.count(relative) == 0 && entry.is_regular_file(ec))
        fs::remove(entry.path(), ec);
    }
  }
}

}  // namespace docsift::html_report
