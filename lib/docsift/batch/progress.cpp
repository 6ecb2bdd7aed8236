#include "docsift/batch/progress.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "docsift/batch/outputs.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {
namespace {


std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char out[32];
  std::snprintf(out, sizeof out, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return out;
}

// A file name as the text log shows it: control characters (an escape sequence in a name must
// not reach the terminal) as \xNN.
std::string printable(const std::string& name) {
  std::string out;
  for (const unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

Progress::Progress(const RunOptions& o, std::ostream& log, int total)
  : o_(o), log_(log), total_(total), start_(Clock::now()) {}

void Progress::image_done(int done, const Record& record) {
  if (o_.quiet) return;
  const double elapsed = seconds_since(start_);
  const double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
  const std::string& file = record.file;
  const std::string status = record.ok() ? "ok" : "failed";
  const double seconds = record.timings_s.count("total") ? record.timings_s.at("total") : 0.0;
  if (o_.log_format == LogFormat::kJson) {
    nlohmann::json line = {{"event", "image"}, {"done", done}, {"total", total_}, {"file", file},
                           {"status", status}, {"seconds", seconds}, {"eta_s", eta}};
    if (record.ok()) line["tier"] = record.tier;
    if (!record.ok()) line["error"] = record.error;
    log_ << line.dump() << std::endl;
    return;
  }
  if (o_.progress_bar) {
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? kWidth * done / total_ : kWidth;
    log_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done << '/' << total_
         << " ETA " << clock_text(eta) << "  " << printable(file.substr(0, 40)) << "\033[K";
    if (status != "ok") log_ << "\n  failed: " << printable(file) << ": " << printable(record.error) << '\n';
    log_.flush();
    return;
  }
  log_ << '[' << done << '/' << total_ << "] " << printable(file) << ' ' << status;
  if (status == "ok") {
    log_ << " tier=" << record.tier;
  } else {
    log_ << ": " << printable(record.error);
  }
  char t[64];
  std::snprintf(t, sizeof t, " %.2fs eta %s", seconds, clock_text(eta).c_str());
  log_ << t << std::endl;
}

void Progress::skipped(const io::SkippedFile& f) {
  if (o_.quiet) return;
  if (o_.log_format == LogFormat::kJson) {
    log_ << nlohmann::json{{"event", "skipped"}, {"file", display_name(f.relative)}, {"reason", display_name(f.reason)}}.dump()
         << std::endl;
  } else {
    log_ << "skipped: " << printable(f.relative) << " (" << printable(f.reason) << ")" << std::endl;
  }
}

void Progress::worker(const std::string& event) {
  if (o_.quiet) return;
  if (o_.log_format == LogFormat::kJson) {
    log_ << nlohmann::json{{"event", "worker"}, {"what", event}}.dump() << std::endl;
  } else {
    log_ << (o_.progress_bar ? "\r\033[K" : "") << "worker: " << event << std::endl;
  }
}

void Progress::finish() {
  if (!o_.quiet && o_.progress_bar && o_.log_format == LogFormat::kText) log_ << '\n';
}


}  // namespace docsift::batch
