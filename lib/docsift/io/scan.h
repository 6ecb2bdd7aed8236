// The pages' files of a run's inputs, as `docsift run` processes them: folders (walked) and files
// (named directly, on the command line or in --files-from), sorted by identity, each real file
// once (symlinks resolved), hidden files and folders skipped, symlink loops survived.
//
// A file's identity, which the journal keys its records by and --resume, --shard and merge go by
// (docs/run.md, "Inputs"): under a folder input, its path relative to that folder ("2024/a.pdf");
// named directly, its path as given, lexically normalised ("extra.pdf", "inbox/../b.png" as "b.png",
// "/srv/x.pdf" stays absolute). The same command line in the same working directory gives the same
// identities night after night.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace docsift::io {

struct ScannedImage {
  std::filesystem::path path;  // as found (the folder joined with the relative path, or as named)
  std::string relative;        // its identity, '/'-separated: the journal's key
};

// A file that is not processed, and why: a dangling link, not a regular file (a FIFO, a device),
// another name of a file processed under its own name, or (named directly) not an image or PDF, or
// (listed in --files-from) not there.
struct SkippedFile {
  std::string relative;
  std::string reason;
};

struct Input {
  std::filesystem::path path;
  // From --files-from: a path that is not there is a skipped file (the list may be older than the
  // folder), where one on the command line is a usage error.
  bool listed = false;
};

// Throws docsift::ConfigError naming the first command-line input (not `listed`) that is not there:
// a usage error, said before anything runs.
void check_inputs_exist(const std::vector<Input>& inputs);

// jpg, jpeg, png, tif, tiff, webp, bmp and pdf in any case. A file reached under several names is
// processed once: under a name that is not a link, else under the first in sort order; the other
// names go to `skipped` (sorted), as do dangling links and non-regular files with an image
// extension. Throws docsift::ConfigError for a command-line input that does not exist, and when two
// different files have one identity (two folders that both hold "a.png").
std::vector<ScannedImage> scan_inputs(const std::vector<Input>& inputs, bool recursive,
                                      std::vector<SkippedFile>* skipped = nullptr);

// One folder's images (scan_inputs of the folder); docsift::FileError when `dir` is not a readable
// folder.
std::vector<ScannedImage> scan_images(const std::filesystem::path& dir, bool recursive,
                                      std::vector<SkippedFile>* skipped = nullptr);

bool has_image_extension(const std::filesystem::path& path);

}  // namespace docsift::io
