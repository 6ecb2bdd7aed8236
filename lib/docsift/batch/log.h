// docsift's stderr for a run: every line is one diagnostic. As text, the time (RFC 3339 UTC, so
// that the nights appended to one log file can be told apart), "docsift: " and the message, control
// characters shown as \xNN so that a file name cannot drive the terminal:
//   2026-11-27T04:20:19.123Z docsift: error: broken.png: ...
// As JSON (--log-format json), one object per line, so that a log shipper can parse every line:
//   {"time": "<RFC 3339 UTC>", "level": "info|warning|error", "event": "...", "message": "...",
//   ...}
// plus the event's own keys (docs/run.md, "Logs"). --quiet drops info lines; notices (info lines
// that change what the outputs hold: a page read again because its file changed, a failed page
// gone), warnings and errors always show. Each line is written under io's decode lock
// (io/decode_lock.h), so that no decoder on another thread has stderr meanwhile.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace docsift::batch {

enum class LogFormat { kText, kJson };

class Log {
 public:
  // kNotice is an info line (level "info" in JSON) that --quiet keeps.
  enum class Level { kInfo, kNotice, kWarning, kError };

  Log(std::ostream& out, LogFormat format, bool quiet)
      : out_(out), format_(format), quiet_(quiet) {}

  // `message` is the text line (after "docsift: "); `fields` go into the JSON object beside it.
  void write(Level level, const std::string& event, const std::string& message,
             const nlohmann::json& fields = nlohmann::json::object()) const;
  void info(const std::string& event, const std::string& message,
            const nlohmann::json& fields = nlohmann::json::object()) const {
    write(Level::kInfo, event, message, fields);
  }
  void notice(const std::string& event, const std::string& message,
              const nlohmann::json& fields = nlohmann::json::object()) const {
    write(Level::kNotice, event, message, fields);
  }
  void warning(const std::string& event, const std::string& message,
               const nlohmann::json& fields = nlohmann::json::object()) const {
    write(Level::kWarning, event, message, fields);
  }
  void error(const std::string& event, const std::string& message,
             const nlohmann::json& fields = nlohmann::json::object()) const {
    write(Level::kError, event, message, fields);
  }

  LogFormat format() const { return format_; }
  bool quiet() const { return quiet_; }
  // `text` as it is (the progress bar's redraws), at once.
  void draw(const std::string& text) const;

 private:
  std::ostream& out_;
  LogFormat format_;
  bool quiet_;
};

}  // namespace docsift::batch
