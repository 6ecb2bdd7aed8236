#include "docsift/io/scan.h"

#include <algorithm>
#include <set>

#include "docsift/error.h"

namespace docsift::io {
namespace fs = std::filesystem;
namespace {

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

void walk(const fs::path& root, const fs::path& dir, bool recursive, std::set<fs::path>& seen_dirs,
          std::set<fs::path>& seen_files, std::vector<ScannedImage>& out) {
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return;  // an unreadable subfolder is skipped; the top folder was checked by the caller
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path p = it->path();
    if (hidden(p)) continue;
    const fs::path real = fs::weakly_canonical(p, ec);
    if (ec) continue;  // a dangling symlink
    if (fs::is_directory(p, ec)) {
      // A symlink back to an ancestor would recurse forever: visit each real folder once.
      if (recursive && seen_dirs.insert(real).second) walk(root, p, recursive, seen_dirs, seen_files, out);
      continue;
    }
    if (!fs::is_regular_file(p, ec) || !has_image_extension(p)) continue;
    if (!seen_files.insert(real).second) continue;  // the same file through another link
    out.push_back({p, p.lexically_relative(root).generic_string()});
  }
}

}  // namespace

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::set<std::string> kExtensions{".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp"};
  return kExtensions.count(ext) > 0;
}

std::vector<ScannedImage> scan_images(const fs::path& dir, bool recursive) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw FileError(dir.string() + ": not a folder (give the folder of images to process)");
  std::set<fs::path> seen_dirs{fs::weakly_canonical(dir, ec)}, seen_files;
  std::vector<ScannedImage> out;
  walk(dir, dir, recursive, seen_dirs, seen_files, out);
  std::sort(out.begin(), out.end(), [](const ScannedImage& a, const ScannedImage& b) { return a.relative < b.relative; });
  return out;
}

}  // namespace docsift::io
