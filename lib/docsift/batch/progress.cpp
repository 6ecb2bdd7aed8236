#include "docsift/batch/progress.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "docsift/batch/outputs.h"
#include "docsift/format.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {
namespace {

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char out[32];
  std::snprintf(out, sizeof out, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return out;
}

}  // namespace

Progress::Progress(const Log& log, bool bar, int total)
    : log_(log),
      bar_(bar && log.format() == LogFormat::kText),
      total_(total),
      start_(Clock::now()) {}

void Progress::image_done(int done, const Record& record) {
  const double elapsed = seconds_since(start_);
  const double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
  const double seconds = record.timings_s.count("total") ? record.timings_s.at("total") : 0.0;
  char timing[64];
  std::snprintf(timing, sizeof timing, "%.2fs eta %s", seconds, clock_text(eta).c_str());
  char count_text[48];  // not "[" + to_string(...): GCC 12 warns falsely (-Wstringop-overflow) on
                        // that here
  std::snprintf(count_text, sizeof count_text, "[%d/%d]", done, total_);
  const std::string count = count_text;
  nlohmann::json fields = {{"done", done},
                           {"total", total_},
                           {"file", record.file},
                           {"status", record.ok() ? "ok" : "failed"},
                           {"seconds", seconds},
                           {"eta_s", eta},
                           {"started_at", record.started_at},
                           {"finished_at", record.finished_at}};
  if (record.ok()) fields["tier"] = record.tier;
  if (!record.ok()) fields["error"] = record.error;
  if (record.warning) fields["warning"] = *record.warning;
  if (bar_ && !log_.quiet()) {
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? kWidth * done / total_ : kWidth;
    log_.draw("\r[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] " +
              std::to_string(done) + '/' + std::to_string(total_) + " ETA " + clock_text(eta) +
              "  " + printable(record.file.substr(0, 40)) + "\033[K");
    if (record.ok()) return;
    log_.draw("\r\033[K");  // the error line replaces the bar, which the next page redraws
  }
  if (!record.ok()) {
    log_.error("image", record.file + ": " + record.error + " " + count, fields);
    return;
  }
  log_.info("image",
            count + " " + record.file + " ok tier=" + record.tier + " " + timing +
                (record.warning ? " (warning: " + *record.warning + ")" : ""),
            fields);
}

void Progress::skipped(const io::SkippedFile& f) {
  if (bar_ && !log_.quiet()) log_.draw("\r\033[K");
  log_.write(f.unreadable ? Log::Level::kError : Log::Level::kWarning, "skipped",
             "skipped " + display_name(f.relative) + ": " + display_name(f.reason),
             {{"file", display_name(f.relative)},
              {"reason", display_name(f.reason)},
              {"unreadable", f.unreadable}});
}

void Progress::not_descended(const std::vector<std::filesystem::path>& folders) {
  constexpr std::size_t kNamed = 10;  // one line stays readable
  std::string names;
  nlohmann::json listed = nlohmann::json::array();
  for (std::size_t i = 0; i < folders.size() && i < kNamed; ++i) {
    const std::string name = display_name(folders[i].string());
    names += (i == 0 ? "" : ", ") + name;
    listed.push_back(name);
  }
  if (folders.size() > kNamed) names += " and " + std::to_string(folders.size() - kNamed) + " more";
  const std::string count =
      std::to_string(folders.size()) + (folders.size() == 1 ? " subfolder" : " subfolders");
  if (bar_ && !log_.quiet()) log_.draw("\r\033[K");
  log_.warning("subfolders",
               count + " not read: " + names +
                   "; pass -r (--recursive) to read the pages in subfolders (hidden folders, "
                   ".name, are never read)",
               {{"count", folders.size()}, {"folders", listed}});
}

void Progress::gone(const Record& marker) {
  if (bar_ && !log_.quiet()) log_.draw("\r\033[K");
  log_.notice("gone",
              marker.file + ": gone: its last record failed and " + marker.error +
                  "; it no longer counts as failed (a gone record in the journal says so)",
              {{"file", marker.file}, {"reason", marker.error}});
}

void Progress::worker(const std::string& event) {
  if (bar_ && !log_.quiet()) log_.draw("\r\033[K");
  log_.info("worker", "worker: " + event, {{"what", event}});
}

void Progress::finish() {
  if (!log_.quiet() && bar_) log_.draw("\n");
}

}  // namespace docsift::batch
