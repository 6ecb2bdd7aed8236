// Exception types shared by every module. Library code throws these with the context a user
// needs (which file, key, tensor; the bad value; what to do); apps/ maps them to exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace docsift {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid configuration or command-line values: the user must change what they asked for.
// Exit code 2.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A file the program was pointed at is missing, unreadable or malformed (model folder,
// safetensors, config.json). The run cannot start. Exit code 3.
class FileError : public Error {
 public:
  using Error::Error;
};

}  // namespace docsift
