#include "docsift/journal/folder.h"

#include <system_error>

#include "docsift/error.h"

namespace docsift::journal {

namespace fs = std::filesystem;

fs::path journal_to_read(const fs::path& dir, const std::string& named) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw InputMissingError(named + ": no such folder; pass the output folder of docsift run");
  if (!fs::is_directory(dir, ec))
    throw ConfigError(named + ": not a folder; pass the output folder of docsift run");
  const fs::path journal = dir / out_files::kJournal;
  if (!fs::exists(journal, ec) && ec == std::errc::permission_denied) {
    throw InputUnreadableError(named + ": cannot read it: " + ec.message());
  }
  if (!fs::is_regular_file(journal, ec)) {
    throw InputMissingError(named + ": has no " + std::string(out_files::kJournal) +
                            "; not an output folder of docsift run");
  }
  return journal;
}

}  // namespace docsift::journal
