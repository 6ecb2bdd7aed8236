#include "docsift/io/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "docsift/error.h"
#include "docsift/io/input_file.h"

namespace docsift::io {
namespace fs = std::filesystem;
std::uint64_t read_journal(const fs::path& path, const JournalVisitor& visit) {
  // Line by line: a journal of 100,000 records is never held in memory.
  std::ifstream in = open_input(path, "the journal");
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
      throw MalformedInputError(
          path.string() + ":" + std::to_string(line_number) +
          ": not a JSON record; the journal is damaged (move it away to start over)");
    }
    try {
      visit(record, good_end);
    } catch (const BadRecord& e) {
      throw MalformedInputError(path.string() + ":" + std::to_string(line_number) + ": " +
                                e.what() + "; the journal is damaged (move it away to start over)");
    }
    good_end += line.size() + 1;
  }
  return good_end;
}

Journal::Journal(const fs::path& path, bool resume, const JournalVisitor& visit) : path_(path) {
  refuse_link(path);
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && fs::file_size(path, ec) > 0 && !resume) {
    throw FileError(path.string() +
                    ": a journal from an earlier run is here; pass --resume to continue it, or "
                    "choose another --out");
  }
  if (exists && resume) {
    const std::uint64_t good_end = read_journal(path, visit);
    torn_bytes_ = static_cast<std::size_t>(fs::file_size(path, ec) - good_end);
    if (torn_bytes_ > 0) fs::resize_file(path, good_end);  // the image in flight is redone
  }
  fd_ =
      UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd_.valid()) throw FileError(path.string() + ": cannot open for appending: " + errno_text());
  if (!exists) sync_folder(path.parent_path());
}

std::uint64_t Journal::append(const nlohmann::json& record) {
  // One write() of the whole line, then fsync: a crash leaves either the full record or a torn
  // tail that the next --resume cuts off. A failure we see is undone here and now.
  const off_t end = ::lseek(fd_.get(), 0, SEEK_END);
  try {
    write_all(fd_, record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
              path_);
    if (::fsync(fd_.get()) != 0)
      throw FileError(path_.string() + ": fsync failed: " + errno_text());
  } catch (const FileError& e) {
    const bool cut = end >= 0 && ::ftruncate(fd_.get(), end) == 0;
    throw JournalWriteError(
        std::string(e.what()) +
        (cut ? "; the partial record was removed, the journal ends at its last complete record"
             : "; the partial record could not be removed"));
  }
  return static_cast<std::uint64_t>(end);
}

}  // namespace docsift::io
