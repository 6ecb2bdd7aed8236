#include "docsift/io/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

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
  if (r.contains("file_bytes") && !r["file_bytes"].is_string()) return "\"file_bytes\" must be a string";
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

std::string record_key(const nlohmann::json& record) {
  const auto bytes = record.find("file_bytes");
  return bytes != record.end() && bytes->is_string() ? bytes->get<std::string>() : record.at("file").get<std::string>();
}

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

std::uint64_t read_journal(const fs::path& path,
                           const std::function<void(const nlohmann::json&, std::uint64_t offset)>& visit) {
  // Line by line: a journal of 100,000 records is never held in memory.
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string() + ": cannot read the journal");
  std::string line;
  std::uint64_t good_end = 0;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (in.eof()) break;  // no newline after it: the write was cut short
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
    if (visit) visit(record, good_end);
    good_end += line.size() + 1;
  }
  return good_end;
}

Journal::Journal(const fs::path& path, bool resume, const std::function<void(const nlohmann::json&)>& visit)
    : path_(path) {
  refuse_link(path);
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && fs::file_size(path, ec) > 0 && !resume) {
    throw FileError(path.string() + ": a journal from an earlier run is here; pass --resume to continue it, or "
                    "choose another --out");
  }
  if (exists && resume) {
    const std::uint64_t good_end = read_journal(path, [&](const nlohmann::json& record, std::uint64_t) {
      files_.insert(record_key(record));
      if (visit) visit(record);
    });
    torn_bytes_ = static_cast<std::size_t>(fs::file_size(path, ec) - good_end);
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
  // Not added to `files_`: those are the names an earlier run finished, which is what --resume
  // skips; a run processes each image once, so adding this run's names would only grow memory.
}

AtomicFile::AtomicFile(const fs::path& path) : path_(path), tmp_(path.string() + ".tmp") {
  // O_EXCL: a file already there, a link above all, is never written through. A regular file left
  // by a run that died between create and rename is ours to remove.
  refuse_link(tmp_);
  std::error_code ec;
  fs::remove(tmp_, ec);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw FileError(tmp_.string() + ": cannot create: " + errno_text());
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  std::error_code ec;
  fs::remove(tmp_, ec);
}

void AtomicFile::write(const std::string& data) { write_all(fd_, data, tmp_); }

void AtomicFile::commit() {
  const bool synced = ::fsync(fd_) == 0;
  ::close(fd_);
  fd_ = -1;
  if (!synced) throw FileError(tmp_.string() + ": fsync failed: " + errno_text());
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) throw FileError(path_.string() + ": cannot replace: " + errno_text());
  sync_folder(path_.parent_path());
}

AppendFile::AppendFile(const fs::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) throw FileError(path.string() + ": cannot open for appending: " + errno_text());
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::write(const std::string& data) { write_all(fd_, data, path_); }

void write_file_atomic(const fs::path& path, const std::string& text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace docsift::io
