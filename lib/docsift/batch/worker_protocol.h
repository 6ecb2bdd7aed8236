// The pipe protocol between a run's supervisor and its worker process (docs/memory.md, "Worker
// isolation"): typed messages, each one line of JSON, written and parsed only here.
//
// Protocol (version 1): one JSON object per line, over a pipe each way (the worker's fds 3 and 4,
// so nothing a library prints on stdout can corrupt it).
//   supervisor → worker  {"type":"hello","protocol":1,"config":"<effective config as YAML>"}
//   worker → supervisor  {"type":"ready","protocol":1,"pid":N,"device":"cuda:0"}
//                        or {"type":"error","kind":"config"|"file","message":"..."} and exit 3
//   supervisor → worker  {"type":"image","path_hex":"<path bytes as hex>","real_hex":"<the path the
//   scan
//                        resolved it to, or "">","page":P,"index":N,"attempt":A}
//   worker → supervisor
//   {"type":"record","record":{...},"fatal":false,"fatal_error":"","memory_in_use":B} supervisor →
//   worker  {"type":"exit"}   (or EOF): the worker exits 0
// The worker dies with its supervisor (PR_SET_PDEATHSIG), so a supervisor killed with -9 leaves
// nothing behind; it ignores SIGINT, so Ctrl-C reaches only the supervisor, which decides.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "docsift/batch/record.h"

namespace docsift::batch {

constexpr int kWorkerProtocol = 1;
constexpr int kWorkerRequestFd = 3, kWorkerReplyFd = 4;

struct HelloMessage {
  std::string config_yaml;  // the effective config (config::to_yaml)
  int index = 1;            // the page the worker is started for (fault specs' image=)
  int start_attempt = 1;    // which try at starting a worker for it (fault specs' attempt=)
};
struct ReadyMessage {
  int pid = 0;
  std::string device;
};
struct StartErrorMessage {
  bool config = false;  // a ConfigError (else a FileError)
  std::string message;
};
struct ImageRequest {
  std::string path;  // bytes, sent as hex: a name need not be UTF-8
  std::string real;  // what the read must find there (batch/page_reader.h); "" for no check
  int page = 0, index = 0, attempt = 1;
};
struct RecordReply {
  Record record;
  bool fatal = false;
  std::string fatal_error;
  std::uint64_t memory_in_use = 0;
};

// One line each, without the newline.
std::string encode(const HelloMessage& m);
std::string encode(const ReadyMessage& m);
std::string encode(const StartErrorMessage& m);
std::string encode(const ImageRequest& m);
std::string encode(const RecordReply& m);
std::string encode_exit();

// A received line: its "type" and the JSON it came in; nullopt when the line is not a JSON object.
struct Message {
  std::string type;
  nlohmann::json json;
};
std::optional<Message> parse_message(const std::string& line);
// The typed payloads; each throws docsift::Error on a missing or mistyped key.
HelloMessage hello_of(const Message& m);
ReadyMessage ready_of(const Message& m);
StartErrorMessage start_error_of(const Message& m);
ImageRequest image_request_of(const Message& m);
RecordReply record_reply_of(const Message& m);

// Writes a whole line; false when the other end is gone.
bool write_line(int fd, const std::string& text);

// Lines from a pipe, with a timeout per call.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  enum class Result { kLine, kEof, kTimeout };
  // timeout_ms < 0 waits indefinitely.
  Result read(std::string& line, int timeout_ms);

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace docsift::batch
