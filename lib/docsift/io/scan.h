// The images of a folder, as `docsift run` processes them: sorted by relative path, each file
// once (symlinks resolved), hidden files and folders skipped, symlink loops survived.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace docsift::io {

struct ScannedImage {
  std::filesystem::path path;  // as found under the folder
  std::string relative;        // relative to the folder, '/'-separated: the journal's key
};

// A file with an image extension that is not processed, and why: a dangling link, not a regular
// file (a FIFO, a device), or another name of a file processed under its own name.
struct SkippedFile {
  std::string relative;
  std::string reason;
};

// jpg, jpeg, png, tif, tiff, webp, bmp and pdf in any case. A file reached under several names is processed
// once, under its real name when it is in the folder (not through a link), else under the first
// link name in sort order; the other names go to `skipped`, as do dangling links and non-regular
// files with an image extension (sorted). Throws docsift::FileError when `dir` is not a readable folder.
std::vector<ScannedImage> scan_images(const std::filesystem::path& dir, bool recursive,
                                      std::vector<SkippedFile>* skipped = nullptr);

bool has_image_extension(const std::filesystem::path& path);

}  // namespace docsift::io
