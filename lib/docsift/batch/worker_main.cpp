#include "docsift/batch/worker_main.h"

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "docsift/batch/page_reader.h"
#include "docsift/batch/worker_protocol.h"
#include "docsift/error.h"
#include "docsift/resilience/fault_spec.h"

namespace docsift::batch {

int run_worker(const std::function<void(const config::Config&)>& prepare_device) {
  LineReader in(kWorkerRequestFd);
  const auto reply = [](const std::string& message) {
    if (!write_line(kWorkerReplyFd, message)) {
      std::_Exit(0);  // the supervisor is gone: nothing to report to
    }
  };
  std::string line;
  if (in.read(line, -1) != LineReader::Result::kLine) return 0;
  std::unique_ptr<PageReader> reader;
  try {
    const std::optional<Message> message = parse_message(line);
    if (!message)
      throw ConfigError("worker: expected a protocol " + std::to_string(kWorkerProtocol) +
                        " hello");
    const HelloMessage hello = hello_of(*message);
    const config::Config cfg = config::from_yaml(hello.config_yaml, "worker config");
    // crash@startup / hang@startup: die before the model loads, as the OOM killer makes a worker
    // do.
    resilience::FaultPlan startup = resilience::FaultPlan::parse(cfg.testing.faults);
    startup.add(resilience::FaultPlan::from_environment());
    const resilience::FaultSite site{
        resilience::FaultPoint::kStartup, hello.index, std::nullopt, 1, 0, hello.start_attempt};
    if (const resilience::FaultSpec* spec = startup.match(site))
      resilience::fire_process_fault(*spec);
    prepare_device(cfg);
    reader = open_page_reader(cfg, /*in_worker=*/true);
    reader->warm_up();
    reply(encode(ReadyMessage{::getpid(), reader->device()}));
  } catch (const ConfigError& e) {
    reply(encode(StartErrorMessage{true, e.what()}));
    return 3;
  } catch (const std::exception& e) {
    reply(encode(StartErrorMessage{
        false, std::string(e.what()).substr(0, std::string(e.what()).find('\n'))}));
    return 3;
  }
  const resilience::FaultPlan& faults = reader->faults();
  while (in.read(line, -1) == LineReader::Result::kLine) {
    const std::optional<Message> message = parse_message(line);
    if (!message || message->type != "image") return 0;  // "exit", or anything else: stop
    const ImageRequest request = image_request_of(*message);
    resilience::FaultSite site{
        resilience::FaultPoint::kStart, request.index, std::nullopt, 1, 0, request.attempt};
    if (const resilience::FaultSpec* spec = faults.match(site))
      resilience::fire_process_fault(*spec);
    reader->set_process_attempt(request.attempt);
    PageOutcome outcome =
        reader->read({request.path, request.real, request.page, request.index, nullptr, true});
    reply(encode(RecordReply{std::move(outcome.record), outcome.fatal, outcome.fatal_error,
                             reader->memory_in_use()}));
  }
  return 0;
}

}  // namespace docsift::batch
