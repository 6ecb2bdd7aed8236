#include "docsift/io/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "docsift/error.h"

namespace docsift::io {
namespace fs = std::filesystem;
namespace {

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const std::string& data, const fs::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(path.string() + ": cannot write: " + errno_text());
    }
    done += static_cast<std::size_t>(n);
  }
}

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// What a record must hold for --resume, the CSV and the summary to read it; "" when it does.
std::string record_problem(const nlohmann::json& r) {
  if (!r.is_object()) return "not a JSON object";
  if (!r.contains("file") || !r["file"].is_string()) return "record has no \"file\" string";
  const auto* status = r.contains("status") ? &r["status"] : nullptr;
  if (status == nullptr || !status->is_string() || (*status != "ok" && *status != "failed")) {
    return "\"status\" must be \"ok\" or \"failed\"";
  }
  const auto object = [&](const char* key) { return r.contains(key) && r[key].is_object(); };
  if (!object("timings_s")) return "\"timings_s\" must be an object";
  if (!object("memory")) return "\"memory\" must be an object";
  if (*status == "ok") {
    if (!object("fields")) return "\"fields\" must be an object";
    if (!r.contains("tier") || !r["tier"].is_string()) return "\"tier\" must be a string";
    if (!object("tokens") || !r["tokens"].contains("generated") || !r["tokens"]["generated"].is_number_integer()) {
      return "\"tokens.generated\" must be an integer";
    }
  }
  return "";
}

}  // namespace

void refuse_link(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_symlink(st)) {
    throw FileError(path.string() + ": is a symbolic link; docsift never writes through links in the output folder "
                                    "(one could redirect its writes to another file). Remove it, or choose another --out");
  }
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    throw FileError(path.string() + ": exists and is not a regular file; remove it, or choose another --out");
  }
}

Journal::Journal(const fs::path& path, bool resume) : path_(path) {
  refuse_link(path);
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && fs::file_size(path, ec) > 0 && !resume) {
    throw FileError(path.string() + ": a journal from an earlier run is here; pass --resume to continue it, or "
                    "choose another --out");
  }
  if (exists && resume) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    std::size_t start = 0, good_end = 0, line_number = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      ++line_number;
      if (end == std::string::npos) break;  // no newline: the write was cut short
      const std::string line = text.substr(start, end - start);
      nlohmann::json record;
      try {
        record = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
        throw FileError(path.string() + ":" + std::to_string(line_number) +
                        ": not a JSON record; the journal is damaged (move it away to start over)");
      }
      if (const std::string problem = record_problem(record); !problem.empty()) {
        throw FileError(path.string() + ":" + std::to_string(line_number) + ": " + problem +
                        "; the journal is damaged (move it away to start over)");
      }
      std::string file = record["file"].get<std::string>();  // before the move below
      records_[file] = std::move(record);
      start = end + 1;
      good_end = start;
    }
    torn_bytes_ = text.size() - good_end;
    if (torn_bytes_ > 0) fs::resize_file(path, good_end);  // the image in flight is redone
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw FileError(path.string() + ": cannot open for appending: " + errno_text());
  if (!exists) sync_folder(path.parent_path());
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const nlohmann::json& record) {
  // One write() of the whole line, then fsync: a crash leaves either the full record or a torn
  // tail that the next --resume cuts off. A failure we see is undone here and now.
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  try {
    write_all(fd_, record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", path_);
    if (::fsync(fd_) != 0) throw FileError(path_.string() + ": fsync failed: " + errno_text());
  } catch (const FileError& e) {
    const bool cut = end >= 0 && ::ftruncate(fd_, end) == 0;
    throw JournalWriteError(std::string(e.what()) + (cut ? "; the partial record was removed, the journal ends at its "
                                                           "last complete record"
                                                         : "; the partial record could not be removed"));
  }
  records_[record.at("file").get<std::string>()] = record;
}

void write_file_atomic(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  // O_EXCL: a file already there, a link above all, is never written through. A regular file left
  // by a run that died between create and rename is ours to remove.
  refuse_link(tmp);
  std::error_code ec;
  fs::remove(tmp, ec);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw FileError(tmp.string() + ": cannot create: " + errno_text());
  try {
    write_all(fd, text, tmp);
  } catch (...) {
    ::close(fd);
    throw;
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) throw FileError(tmp.string() + ": fsync failed: " + errno_text());
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw FileError(path.string() + ": cannot replace: " + errno_text());
  sync_folder(path.parent_path());
}

}  // namespace docsift::io
