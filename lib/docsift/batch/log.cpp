#include "docsift/batch/log.h"

#include <cstdio>

#include "docsift/batch/outputs.h"
#include "docsift/format.h"
#include "docsift/io/decode_lock.h"
#include "docsift/timestamp.h"

namespace docsift::batch {

void Log::write(Level level, const std::string& event, const std::string& message,
                const nlohmann::json& fields) const {
  if (quiet_ && level == Level::kInfo) return;
  const auto held = io::decode_lock();
  if (format_ == LogFormat::kJson) {
    // Ordered: time, level, event and message lead every line, as a person scanning the log reads.
    nlohmann::ordered_json line = {{"time", rfc3339_now()},
                                   {"level", level == Level::kWarning ? "warning"
                                             : level == Level::kError ? "error"
                                                                      : "info"},
                                   {"event", event},
                                   {"message", display_name(message)}};
    for (const auto& [key, value] : fields.items()) line[key] = value;
    out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return;
  }
  out_ << rfc3339_now() << " docsift: "
       << (level == Level::kWarning ? "warning: "
           : level == Level::kError ? "error: "
                                    : "")
       << printable(message) << std::endl;
}

void Log::draw(const std::string& text) const {
  const auto held = io::decode_lock();
  out_ << text << std::flush;
}

}  // namespace docsift::batch
