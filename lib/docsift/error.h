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

// An input the user named (a folder or document given to `run`, eval's PRED, GT or --baseline,
// a shard folder given to `merge`, a --files-from list) is not there. Exit code 2, as every
// command's other usage errors: the command line names something that does not exist.
class InputMissingError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// An input that is there could not be read: permission denied, an I/O error. A fault of the
// machine, not of the command line: exit code 3, whichever command met it.
class InputUnreadableError : public FileError {
 public:
  using FileError::FileError;
};

// An input file was read but is not what it claims to be: a predictions or truth CSV or JSONL,
// a --baseline report, a --files-from list, a shard's journal. The message names the file and
// the line. Exit code 7, whichever command met it.
class MalformedInputError : public FileError {
 public:
  using FileError::FileError;
};

// An output could not be written once the work had begun (a full disk, a file-size limit, an I/O
// error): the file in hand is left as it was, no temporary behind, and what was written before is
// whole. Running the same command again finishes it. Exit code 5, as a stopped run.
class OutputWriteError : public FileError {
 public:
  using FileError::FileError;
};

// A stop was requested (SIGINT, SIGTERM or SIGHUP, and its grace period is over): the work in
// flight is abandoned, unrecorded, for --resume to redo (docs/run.md, "Stops"). Not a failure, so
// no layer turns it into a failed record: generate/ throws it from the decode loop, the ladder and
// the page readers pass it on, batch/ throws it while it waits on a worker and ends the run on it.
// It lives here, below them all, so that none of them names another's exception for a stop.
// Exit code 5.
class StopRequested : public Error {
 public:
  using Error::Error;
};

}  // namespace docsift
