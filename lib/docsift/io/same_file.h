// A command never writes over what it reads: the files it reads, by identity (device and inode,
// not by name, so a second name, a link or "./x" is the same file), checked against every path it
// is about to write, before anything is written or removed.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <string>
#include <vector>

namespace docsift::io {

struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

// Whether `inner` is `outer` or lies inside it, both resolved (links followed, made absolute),
// component by component ("/a/bc" is not in "/a/b").
bool is_within(const std::filesystem::path& inner, const std::filesystem::path& outer);

class ReadFiles {
 public:
  // `path`, which the command reads as `role` ("PRED", "--config"); nothing when it is not there
  // (its reader says so in its own words). Links are followed: their target is what is read.
  void add(const std::filesystem::path& path, const std::string& role);
  // Every file under `dir` (a folder given to run, a model folder), or with `pages_only` those a
  // scan reads as pages (io/scan.h's extensions).
  void add_folder(const std::filesystem::path& dir, const std::string& role, bool pages_only);
  // The role of the file `path` is (links followed), or "" when it is none of them.
  std::string role_of(const std::filesystem::path& path) const;

 private:
  struct Entry {
    FileIdentity id;
    std::string role;
    std::filesystem::path path;
  };
  std::vector<Entry> read_;
  struct Folder {
    std::filesystem::path dir;  // canonical
    std::string role;
    bool pages_only;
  };
  std::vector<Folder> folders_;
};

}  // namespace docsift::io
