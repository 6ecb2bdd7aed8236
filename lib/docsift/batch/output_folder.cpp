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

OutputFolder::OutputFolder(const fs::path& dir, const std::string& what) : dir_(checked(dir)), lock_(dir_, what) {}

}  // namespace docsift::batch
