#include "docsift/io/scan.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "docsift/error.h"

namespace docsift::io {
namespace fs = std::filesystem;
namespace {

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// One image file found under one name.
struct Found {
  ScannedImage image;
  fs::path real;  // the file it names, links resolved
  bool link = false;
};

// A file with an image extension found under `relative`: processed, or skipped with the reason.
void consider(const fs::path& p, const std::string& relative, std::vector<Found>& found,
              std::vector<SkippedFile>& skipped) {
  std::error_code ec;
  const bool link = fs::is_symlink(fs::symlink_status(p, ec));
  const fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) {
    skipped.push_back({relative, link ? "dangling link" : "not there"});
  } else if (!fs::is_regular_file(st)) {
    skipped.push_back({relative, "not a regular file"});
  } else {
    found.push_back({{p, relative}, fs::weakly_canonical(p, ec), link});
  }
}

void walk(const fs::path& root, const fs::path& dir, bool recursive, std::set<fs::path>& seen_dirs,
          std::vector<Found>& found, std::vector<SkippedFile>& skipped) {
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return;  // an unreadable subfolder is skipped; the top folder was checked by the caller
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path p = it->path();
    if (hidden(p)) continue;
    if (fs::is_directory(fs::status(p, ec))) {
      // A symlink back to an ancestor would recurse forever: visit each real folder once.
      if (recursive && seen_dirs.insert(fs::weakly_canonical(p, ec)).second) {
        walk(root, p, recursive, seen_dirs, found, skipped);
      }
      continue;
    }
    if (has_image_extension(p)) consider(p, p.lexically_relative(root).generic_string(), found, skipped);
  }
}

}  // namespace

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::set<std::string> kExtensions{".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp", ".pdf"};
  return kExtensions.count(ext) > 0;
}

void check_inputs_exist(const std::vector<Input>& inputs) {
  for (const Input& input : inputs) {
    std::error_code ec;
    if (!input.listed && !fs::exists(fs::symlink_status(input.path, ec))) {
      throw ConfigError(input.path.string() + ": no such file or folder (give folders of documents, or the files themselves)");
    }
  }
}

std::vector<ScannedImage> scan_inputs(const std::vector<Input>& inputs, bool recursive, std::vector<SkippedFile>* skipped) {
  check_inputs_exist(inputs);
  std::vector<Found> found;
  std::vector<SkippedFile> skips;
  std::set<fs::path> seen_dirs;
  for (const Input& input : inputs) {
    std::error_code ec;
    const fs::path& p = input.path;
    const std::string named = p.lexically_normal().generic_string();
    if (fs::is_directory(p, ec)) {
      if (seen_dirs.insert(fs::weakly_canonical(p, ec)).second) walk(p, p, recursive, seen_dirs, found, skips);
    } else if (!has_image_extension(p)) {
      skips.push_back({named, "not an image or PDF by its name (jpg, jpeg, png, tif, tiff, webp, bmp, pdf)"});
    } else {
      consider(p, named, found, skips);
    }
  }
  // Per real file, the name that is not a link wins, then the first in sort order; the directory
  // order the walk saw them in must not decide.
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.real, a.link, a.image.relative) < std::tie(b.real, b.link, b.image.relative);
  });
  std::vector<ScannedImage> out;
  std::map<std::string, const Found*> by_identity;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (i > 0 && found[i].real == found[i - 1].real) {
      skips.push_back({found[i].image.relative, "another name of " + out.back().relative});
      continue;
    }
    const auto [at, inserted] = by_identity.emplace(found[i].image.relative, &found[i]);
    if (!inserted) {
      throw ConfigError(at->second->image.path.string() + " and " + found[i].image.path.string() + " would both be \"" +
                        found[i].image.relative +
                        "\" in the journal; run them into separate --out folders, or name the files directly");
    }
    out.push_back(found[i].image);
  }
  std::sort(out.begin(), out.end(), [](const ScannedImage& a, const ScannedImage& b) { return a.relative < b.relative; });
  std::sort(skips.begin(), skips.end(), [](const SkippedFile& a, const SkippedFile& b) { return a.relative < b.relative; });
  if (skipped != nullptr) *skipped = std::move(skips);
  return out;
}

std::vector<ScannedImage> scan_images(const fs::path& dir, bool recursive, std::vector<SkippedFile>* skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw FileError(dir.string() + ": not a folder (give the folder of images to process)");
  return scan_inputs({Input{dir}}, recursive, skipped);
}

}  // namespace docsift::io
