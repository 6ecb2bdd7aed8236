#include "docsift/generate/op_count.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace docsift::generate {

struct OpCounter::State {
  std::mutex mutex;
  std::map<std::string, std::int64_t> counts;
  std::atomic<bool> counting{false};
  int first_counted_step = 0, last_step = 0;
  at::CallbackHandle handle = 0;
};

namespace {
OpCounter::State* g_state =
    nullptr;  // the one counter listening (RecordFunction callbacks are plain functions)
}

OpCounter::OpCounter() : s_(std::make_unique<State>()) {
  g_state = s_.get();
  s_->handle = at::addGlobalCallback(
      at::RecordFunctionCallback([](const at::RecordFunction& fn)
                                     -> std::unique_ptr<at::ObserverContext> {
        if (g_state != nullptr && g_state->counting.load(std::memory_order_relaxed)) {
          const std::lock_guard<std::mutex> lock(g_state->mutex);
          ++g_state->counts[fn.name()];
        }
        return nullptr;
      }).scopes({at::RecordScope::FUNCTION}));
}

OpCounter::~OpCounter() {
  at::removeCallback(s_->handle);
  g_state = nullptr;
}

void OpCounter::on_stage(Stage stage, int step) {
  if (stage != Stage::kDecode) return;
  s_->last_step = step;
  if (step == 2) {
    s_->first_counted_step = 2;
    s_->counting = true;
  }
}

nlohmann::json OpCounter::report(int top) {
  s_->counting = false;
  // Steps 2..last were counted, each through the end of its own work (the last step's work runs
  // after its hook, so it is complete when generation returns).
  const int steps = s_->first_counted_step > 0 ? s_->last_step - s_->first_counted_step + 1 : 0;
  std::int64_t total = 0;
  std::vector<std::pair<std::int64_t, std::string>> by_count;
  for (const auto& [name, count] : s_->counts) {
    total += count;
    by_count.emplace_back(count, name);
  }
  std::sort(by_count.rbegin(), by_count.rend());
  nlohmann::json top_ops = nlohmann::json::array();
  for (int i = 0; i < top && i < static_cast<int>(by_count.size()); ++i) {
    top_ops.push_back(
        {{"name", by_count[i].second},
         {"per_step", steps > 0 ? static_cast<double>(by_count[i].first) / steps : 0.0}});
  }
  // `.item()` and every other read of a tensor's value on the host: on a GPU each one waits for
  // the device to finish all queued work, so a step should have exactly one (the next token).
  const auto reads = s_->counts.find("aten::_local_scalar_dense");
  const std::int64_t host_reads = reads == s_->counts.end() ? 0 : reads->second;
  return {{"decode_steps_counted", steps},
          {"ops_per_step", steps > 0 ? static_cast<double>(total) / steps : 0.0},
          {"host_reads_per_step", steps > 0 ? static_cast<double>(host_reads) / steps : 0.0},
          {"distinct_ops", by_count.size()},
          {"top", top_ops}};
}

}  // namespace docsift::generate
