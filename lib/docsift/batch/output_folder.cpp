#include "docsift/batch/output_folder.h"

#include <system_error>

#include "docsift/error.h"
#include "docsift/io/output_file.h"

namespace docsift::batch {
namespace fs = std::filesystem;

const fs::path& OutputFolder::checked(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(dir.string() + ": cannot create the output folder: " + ec.message());
  io::refuse_link(dir / out_files::kLock);
  for (const std::string_view name : out_files::kWritten) {
    io::refuse_link(dir / name);
    io::refuse_link(dir / (std::string(name) + ".tmp"));
  }
  return dir;
}

OutputFolder::OutputFolder(const fs::path& dir, const std::string& what)
    : dir_(checked(dir)), lock_(dir_, what) {}

JournalSink OutputFolder::journal(bool resume, const io::JournalVisitor& visit) const {
  return JournalSink(io::Journal(file(out_files::kJournal), resume, visit));
}

Tables OutputFolder::tables(const std::vector<config::OutputFormat>& formats,
                            const std::vector<std::string>& fields) const {
  std::vector<std::pair<Output, fs::path>> files;
  for (const Output table : tables_of(formats))
    files.emplace_back(table, file(out_files::of(table)));
  return Tables(std::move(files), fields);
}

std::unique_ptr<TableSink> OutputFolder::table(Output table, const std::vector<std::string>& fields,
                                               TableSink::Mode mode) const {
  return std::make_unique<TableSink>(table, file(out_files::of(table)), fields, mode);
}

void OutputFolder::write_summary(const Summary& summary) const {
  io::write_file_atomic(file(out_files::kSummary), summary.to_json().dump(2) + "\n");
}

void OutputFolder::remove_summary() const {
  std::error_code ignored;  // one that stays is replaced by the run's own at its end
  fs::remove(file(out_files::kSummary), ignored);
}

namespace {

// The same folder: by identity where both are there, else by their absolute, normalised names.
bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(fs::absolute(a, ec), ec) ==
         fs::weakly_canonical(fs::absolute(b, ec), ec);
}

// The name of an output folder's own file that `name` is ("results.jsonl", "summary.json.tmp"), or
// "".
std::string own_file_name(const std::string& name) {
  if (name == out_files::kLock) return name;
  for (const std::string_view own : out_files::kWritten) {
    if (name == own || name == std::string(own) + ".tmp") return name;
  }
  return "";
}

}  // namespace

void refuse_to_overwrite(const fs::path& path, const std::string& option,
                         const io::ReadFiles& reads, const fs::path& out_dir) {
  const std::string nothing = "; nothing was written: choose another path";
  std::error_code ec;
  // A folder is never replaced by the file: the write would fail after the work was done.
  if (fs::is_directory(path, ec)) {
    throw ConfigError(option + " " + path.string() + ": is a folder, not a file" + nothing);
  }
  if (const std::string role = reads.role_of(path); !role.empty()) {
    throw ConfigError(option + " " + path.string() + ": is " + role + ", which this command reads" +
                      nothing);
  }
  const std::string name = own_file_name(path.filename().string());
  if (name.empty()) return;
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const bool output_folder = (!out_dir.empty() && same_folder(folder, out_dir)) ||
                             fs::exists(folder / out_files::kJournal, ec) ||
                             fs::exists(folder / out_files::kLock, ec);
  if (output_folder) {
    throw ConfigError(option + " " + path.string() + ": is the output folder's own " + name +
                      " (docsift run and merge write it)" + nothing);
  }
}

}  // namespace docsift::batch
