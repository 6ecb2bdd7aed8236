// A page's file opened once and read through that one opening, so that what a run reads is the
// file its scan allowed (docs/run.md, "Links"). The scan resolves each name to the file it names
// and skips a link out of the folders given; between that scan and the page's read, someone who
// may write the inbox could put a link (or a linked folder) where the file was. The read opens the
// name, asks the kernel which file it opened (/proc/self/fd), and refuses one that is not the path
// the scan resolved; the decoders then read /proc/self/fd/N, this very opening, not the name again.
#pragma once

#include <filesystem>
#include <string>

#include "docsift/io/output_file.h"

namespace docsift::io {

class PinnedFile {
 public:
  // Finds `path` (O_PATH: nothing is read, no FIFO waited on, no device opened). With
  // `expected_real` (the path the scan resolved; empty: no check, --follow-links), throws
  // docsift::FileError naming `path` when the file opened is another one. Where /proc is not
  // mounted the kernel cannot say, and the name is read as it is (docs/run.md says so).
  PinnedFile(const std::filesystem::path& path, const std::filesystem::path& expected_real);

  // The opening itself (O_PATH: fstat works on it, read does not); -1 when the name could not be
  // found.
  int fd() const { return fd_.get(); }
  // The name to hand a decoder: /proc/self/fd/N, or the path itself where /proc cannot be used.
  const std::filesystem::path& open_path() const { return open_path_; }
  // `text` (an error message, a decoder's words) with open_path() written as the file's own path.
  std::string named(std::string text) const;

 private:
  std::filesystem::path path_;
  UniqueFd fd_;
  std::filesystem::path open_path_;
};

}  // namespace docsift::io
