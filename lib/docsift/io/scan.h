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

// jpg, jpeg, png, tif, tiff, webp, bmp in any case. Throws docsift::FileError when `dir` is not a
// readable folder.
std::vector<ScannedImage> scan_images(const std::filesystem::path& dir, bool recursive);

bool has_image_extension(const std::filesystem::path& path);

}  // namespace docsift::io
