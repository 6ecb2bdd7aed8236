#include "docsift/batch/worker_protocol.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "docsift/error.h"
#include "docsift/json_fields.h"

namespace docsift::batch {
namespace {

using json = nlohmann::json;

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw Error("worker protocol: odd-length hex");
  const auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Error("worker protocol: bad hex digit");
  };
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2)
    out += static_cast<char>(value(hex[i]) * 16 + value(hex[i + 1]));
  return out;
}

// Non-UTF-8 bytes a record carries (a model's output, a file name) are replaced, not fatal.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A key of the message as T: `fallback` when absent, a docsift::Error when present with another
// type (nlohmann's value() would throw its own exception, which callers do not expect).
template <class T>
T field(const Message& m, const char* key, std::optional<T> fallback = std::nullopt) {
  const auto it = m.json.find(key);
  if (it == m.json.end() && fallback) return *fallback;
  if (it != m.json.end()) {
    if (const std::optional<T> value = json_value_as<T>(*it)) return *value;
  }
  throw Error("worker protocol: a \"" + m.type + "\" message without a valid \"" + key + "\"");
}

}  // namespace

std::string encode(const HelloMessage& m) {
  return dump({{"type", "hello"},
               {"protocol", kWorkerProtocol},
               {"config", m.config_yaml},
               {"index", m.index},
               {"start_attempt", m.start_attempt}});
}
std::string encode(const ReadyMessage& m) {
  return dump(
      {{"type", "ready"}, {"protocol", kWorkerProtocol}, {"pid", m.pid}, {"device", m.device}});
}
std::string encode(const StartErrorMessage& m) {
  return dump({{"type", "error"}, {"kind", m.config ? "config" : "file"}, {"message", m.message}});
}
std::string encode(const ImageRequest& m) {
  return dump({{"type", "image"},
               {"path_hex", to_hex(m.path)},
               {"real_hex", to_hex(m.real)},
               {"page", m.page},
               {"index", m.index},
               {"attempt", m.attempt}});
}
std::string encode(const RecordReply& m) {
  return dump({{"type", "record"},
               {"record", m.record.to_json()},
               {"fatal", m.fatal},
               {"fatal_error", m.fatal_error},
               {"memory_in_use", m.memory_in_use}});
}
std::string encode_exit() { return R"({"type":"exit"})"; }

std::optional<Message> parse_message(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const auto type = j.find("type");
  return Message{type != j.end() && type->is_string() ? type->get<std::string>() : "",
                 std::move(j)};
}

HelloMessage hello_of(const Message& m) {
  const auto protocol = m.json.find("protocol");
  if (m.type != "hello" || protocol == m.json.end() || *protocol != kWorkerProtocol) {
    throw ConfigError("worker: expected a protocol " + std::to_string(kWorkerProtocol) + " hello");
  }
  return {field<std::string>(m, "config"), field<int>(m, "index", 1),
          field<int>(m, "start_attempt", 1)};
}
ReadyMessage ready_of(const Message& m) {
  return {field<int>(m, "pid", 0), field<std::string>(m, "device", std::string())};
}
StartErrorMessage start_error_of(const Message& m) {
  return {field<std::string>(m, "kind", std::string()) == "config",
          field<std::string>(m, "message", std::string("the worker could not start"))};
}
ImageRequest image_request_of(const Message& m) {
  return {from_hex(field<std::string>(m, "path_hex")),
          from_hex(field<std::string>(m, "real_hex", std::string())), field<int>(m, "page", 0),
          field<int>(m, "index"), field<int>(m, "attempt")};
}
RecordReply record_reply_of(const Message& m) {
  return {Record::from_json(field<json>(m, "record"), "the worker's reply"),
          field<bool>(m, "fatal", false), field<std::string>(m, "fatal_error", std::string()),
          field<std::uint64_t>(m, "memory_in_use", 0)};
}

bool write_line(int fd, const std::string& text) {
  const std::string line = text + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

LineReader::Result LineReader::read(std::string& line, int timeout_ms) {
  while (true) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return Result::kLine;
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Result::kTimeout;
    char chunk[65536];
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Result::kEof;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace docsift::batch
