#include "docsift/data_folder.h"

#include <system_error>

namespace docsift {

std::string data_folder(const std::string& name,
                        const std::function<bool(const std::filesystem::path&)>& usable) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::filesystem::path up = exe.parent_path().parent_path();
  for (const auto& folder :
       {up / "share" / "docsift" / name, up / ".deps" / name, up.parent_path() / ".deps" / name}) {
    if (usable(folder)) return folder.string();
  }
  return "";
}

}  // namespace docsift
