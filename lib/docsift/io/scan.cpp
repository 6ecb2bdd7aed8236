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

// Not there (or a path component is not a folder): a dangling link, a file deleted meanwhile. Any
// other error (permission denied, an I/O error) means the entry is there but cannot be read.
bool missing(const std::error_code& ec) {
  return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
}

// Whether `real` (a canonical path) is `root` or lies under it, component by component.
bool inside(const fs::path& real, const fs::path& root) {
  return std::mismatch(root.begin(), root.end(), real.begin(), real.end()).first == root.end();
}

// What one scan collects.
struct Walk {
  bool recursive = false;
  // Unless follow_links, only what lies under `roots` (the folders given, links resolved) is read:
  // a link planted in a shared inbox must not make a root cron job read a file it names.
  bool follow_links = false;
  std::vector<fs::path> roots;
  std::set<fs::path> seen_dirs;
  std::vector<Found> found;
  std::vector<SkippedFile> skipped;
  std::vector<fs::path> not_descended;
};

// Whether the real path `real` (empty: it could not be resolved) may be read: under a folder
// given, or `own_folder` (a file named directly: the folder that holds its name), or follow_links.
bool allowed(const fs::path& real, const Walk& w, const fs::path& own_folder) {
  if (w.follow_links) return true;
  if (real.empty()) return false;
  if (!own_folder.empty() && inside(real, own_folder)) return true;
  return std::any_of(w.roots.begin(), w.roots.end(),
                     [&](const fs::path& root) { return inside(real, root); });
}

std::string outside_reason(bool link, const fs::path& real, bool folder) {
  return std::string(link ? "a link to a " : "under a linked folder: a ") +
         (folder ? "folder" : "file") + " outside the folders given to run (" +
         (real.empty() ? std::string("unresolved") : real.string()) +
         "), not opened; pass --follow-links (input.follow_links) to read it";
}

// A file with an image extension found under `relative`: processed, or skipped with the reason.
// `own_folder` is the folder a file named directly lies in (empty for one found by a walk).
void consider(const fs::path& p, const std::string& relative, Walk& w,
              const fs::path& own_folder = {}) {
  std::error_code ec;
  const fs::file_status own = fs::symlink_status(p, ec);
  if (ec && !missing(ec)) {
    w.skipped.push_back({relative, "cannot read it: " + ec.message(), true});
    return;
  }
  const bool link = fs::is_symlink(own);
  const fs::file_status st = fs::status(p, ec);
  if (ec && !missing(ec)) {
    w.skipped.push_back({relative, "cannot read the file it links to: " + ec.message(), true});
  } else if (!fs::exists(st)) {
    w.skipped.push_back({relative, link ? "dangling link" : "not there"});
  } else {
    // Resolved with stat and readlink only: nothing outside is opened to decide.
    fs::path real = fs::weakly_canonical(p, ec);
    if (ec) real.clear();
    if (!allowed(real, w, own_folder)) {
      w.skipped.push_back({relative, outside_reason(link, real, false), false, true});
    } else if (!fs::is_regular_file(st)) {
      w.skipped.push_back({relative, "not a regular file"});
    } else {
      w.found.push_back({{p, relative, real}, real, link});
    }
  }
}

// A folder given (`dir` == `root`) that cannot be read throws: the whole input is lost, which
// must never look like an empty inbox. A subfolder that cannot be read is a skipped entry (its
// relative path with a trailing '/'), and the walk goes on.
void walk(const fs::path& root, const fs::path& dir, Walk& w) {
  const auto unreadable = [&](const std::error_code& error, const std::string& what) {
    if (dir == root) {
      throw InputUnreadableError(
          root.string() + ": " + what + ": " + error.message() +
          "; run docsift as a user who may read it (this is not an empty inbox)");
    }
    w.skipped.push_back({dir.lexically_relative(root).generic_string() + "/",
                         what + ": " + error.message() + "; its pages are not processed", true});
  };
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return unreadable(ec, "cannot read this folder");
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path p = it->path();
    if (hidden(p)) continue;
    std::error_code status_ec;
    const fs::file_status st = fs::status(p, status_ec);
    if (fs::is_directory(st)) {
      if (!w.recursive) {
        w.not_descended.push_back(p);
        continue;
      }
      fs::path real = fs::weakly_canonical(p, status_ec);
      if (status_ec) real.clear();
      if (!allowed(real, w, {})) {
        w.skipped.push_back(
            {p.lexically_relative(root).generic_string() + "/",
             outside_reason(fs::is_symlink(it->symlink_status(status_ec)), real, true), false,
             true});
      } else if (w.seen_dirs.insert(real).second) {
        // A symlink back to an ancestor would recurse forever: visit each real folder once.
        walk(root, p, w);
      }
      continue;
    }
    if (has_image_extension(p)) {
      consider(p, p.lexically_relative(root).generic_string(), w);
    } else if (status_ec && !missing(status_ec) && w.recursive) {
      // It may be a folder whose pages are lost: said, not passed over.
      w.skipped.push_back({p.lexically_relative(root).generic_string(),
                           "cannot tell what it is: " + status_ec.message(), true});
    }
  }
  if (ec) unreadable(ec, "could not read all of this folder");
}

}  // namespace

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::set<std::string> kExtensions{".jpg",  ".jpeg", ".png", ".tif",
                                                 ".tiff", ".webp", ".bmp", ".pdf"};
  return kExtensions.count(ext) > 0;
}

void check_inputs_exist(const std::vector<Input>& inputs) {
  for (const Input& input : inputs) {
    std::error_code ec;
    if (input.listed || fs::exists(fs::symlink_status(input.path, ec))) continue;
    if (ec && !missing(ec)) {
      throw InputUnreadableError(input.path.string() + ": cannot look at it: " + ec.message() +
                                 "; run docsift as a user who may read it");
    }
    throw InputMissingError(
        input.path.string() +
        ": no such file or folder (give folders of documents, or the files themselves)");
  }
}

std::vector<ScannedImage> scan_inputs(const std::vector<Input>& inputs, bool recursive,
                                      std::vector<SkippedFile>* skipped,
                                      std::vector<fs::path>* not_descended, bool follow_links) {
  check_inputs_exist(inputs);
  Walk w;
  w.recursive = recursive;
  w.follow_links = follow_links;
  // Every folder given, as its real path, before any walk: a link from one folder given into
  // another is inside the inputs. (A folder given may itself be a link: what it names is given.)
  for (const Input& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input.path, ec)) w.roots.push_back(fs::weakly_canonical(input.path, ec));
  }
  for (const Input& input : inputs) {
    std::error_code ec;
    const fs::path& p = input.path;
    const std::string named = p.lexically_normal().generic_string();
    if (fs::is_directory(p, ec)) {
      if (w.seen_dirs.insert(fs::weakly_canonical(p, ec)).second) walk(p, p, w);
    } else if (!has_image_extension(p)) {
      w.skipped.push_back(
          {named, "not an image or PDF by its name (jpg, jpeg, png, tif, tiff, webp, bmp, pdf)"});
    } else {
      // A file named directly (a --files-from entry above all, which a list generator may have
      // written from an inbox's names) may be a link only into the folder that holds the name.
      const fs::path own_folder = fs::weakly_canonical(fs::absolute(p, ec).parent_path(), ec);
      consider(p, named, w, ec ? fs::path() : own_folder);
    }
  }
  std::vector<Found>& found = w.found;
  std::vector<SkippedFile>& skips = w.skipped;
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
      throw ConfigError(
          at->second->image.path.string() + " and " + found[i].image.path.string() +
          " would both be \"" + found[i].image.relative +
          "\" in the journal; run them into separate --out folders, or name the files directly");
    }
    out.push_back(found[i].image);
  }
  std::sort(out.begin(), out.end(),
            [](const ScannedImage& a, const ScannedImage& b) { return a.relative < b.relative; });
  std::sort(skips.begin(), skips.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.relative < b.relative; });
  if (skipped != nullptr) *skipped = std::move(skips);
  if (not_descended != nullptr) {
    std::sort(w.not_descended.begin(), w.not_descended.end());
    *not_descended = std::move(w.not_descended);
  }
  return out;
}

std::vector<ScannedImage> scan_images(const fs::path& dir, bool recursive,
                                      std::vector<SkippedFile>* skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw FileError(dir.string() + ": not a folder (give the folder of images to process)");
  return scan_inputs({Input{dir}}, recursive, skipped);
}

}  // namespace docsift::io
