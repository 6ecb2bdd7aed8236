// Opening a file the user named as an input, with the exit-code classes every command shares
// (README "Exit codes"): not there is a usage error (2), there but unreadable a fault (3).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace docsift::io {

// `path` opened for reading in binary mode. Throws InputMissingError when it is not there and
// InputUnreadableError when it is there but cannot be opened (permission, I/O error, a folder),
// each naming `role` ("PRED", "--files-from"), the path and the system's reason.
std::ifstream open_input(const std::filesystem::path& path, const std::string& role);

// The same classification for an open that already failed with `error` (an errno value).
[[noreturn]] void throw_input_error(const std::filesystem::path& path, const std::string& role,
                                    int error);

}  // namespace docsift::io
