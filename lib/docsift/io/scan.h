// The pages' files of a run's inputs, as `docsift run` processes them: folders (walked) and files
// (named directly, on the command line or in --files-from), sorted by identity, each real file
// once (symlinks resolved), hidden files and folders skipped, symlink loops survived.
//
// A file's identity, which the journal keys its records by and --resume, --shard and merge go by
// (docs/run.md, "Inputs"): under a folder input, its path relative to that folder ("2024/a.pdf");
// named directly, its path as given, lexically normalised ("extra.pdf", "inbox/../b.png" as
// "b.png",
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
  // The file it names, links resolved (absolute): what a read must find there again unless links
  // are followed (pinned_file.h).
  std::filesystem::path real;
};

// A file that is not processed, and why: a dangling link, not a regular file (a FIFO, a device),
// another name of a file processed under its own name, or (named directly) not an image or PDF, or
// (listed in --files-from) not there; or, `unreadable`, a subfolder (its relative path ends in
// '/') or file that could not be read (permission denied, an I/O error).
struct SkippedFile {
  std::string relative;
  std::string reason;
  // A fault, not what the folder holds: pages may be behind it, so the run exits 1 for it
  // (docs/run.md, "Scan").
  bool unreadable = false;
  // A link (or a file under a linked folder) whose target lies outside the folders given: not
  // opened unless follow_links (docs/run.md, "Links").
  bool link_outside = false;
};

struct Input {
  std::filesystem::path path;
  // From --files-from: a path that is not there is a skipped file (the list may be older than the
  // folder), where one on the command line is a usage error.
  bool listed = false;
};

// Throws docsift::InputMissingError naming the first command-line input (not `listed`) that is not
// there: a usage error, said before anything runs; docsift::InputUnreadableError when it cannot
// even be looked at (a folder above it that may not be entered).
void check_inputs_exist(const std::vector<Input>& inputs);

// jpg, jpeg, png, tif, tiff, webp, bmp and pdf in any case. A file reached under several names is
// processed once: under a name that is not a link, else under the first in sort order; the other
// names go to `skipped` (sorted), as do dangling links, non-regular files with an image extension
// and (`unreadable`) the subfolders and files that cannot be read. Without `recursive`, the
// subfolders of the folders given go to `not_descended` (sorted). Unless `follow_links`, a file or
// subfolder whose real path (links resolved) lies outside every folder given is skipped unopened
// (`link_outside`); for a file named directly, its own folder counts as given. Throws what
// check_inputs_exist throws, docsift::InputUnreadableError naming a folder given that cannot be
// read (an inbox that cannot be read is a fault, never an empty night), and docsift::ConfigError
// when two different files have one identity (two folders that both hold "a.png").
std::vector<ScannedImage> scan_inputs(const std::vector<Input>& inputs, bool recursive,
                                      std::vector<SkippedFile>* skipped = nullptr,
                                      std::vector<std::filesystem::path>* not_descended = nullptr,
                                      bool follow_links = false);

// One folder's images (scan_inputs of the folder); docsift::FileError when `dir` is not a readable
// folder.
std::vector<ScannedImage> scan_images(const std::filesystem::path& dir, bool recursive,
                                      std::vector<SkippedFile>* skipped = nullptr);

bool has_image_extension(const std::filesystem::path& path);

}  // namespace docsift::io
