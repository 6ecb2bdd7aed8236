// libFuzzer target: what --resume, merge and eval read back from an output folder a crash may have
// torn or someone may have edited (a journal line, summary.json), and what the supervisor reads
// from a worker's pipe. Problems must be docsift errors, never a crash or a library exception.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/batch/record.h"
#include "docsift/batch/worker_protocol.h"
#include "docsift/error.h"
#include "docsift/io/journal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace docsift::batch;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_discarded()) {
    try {
      const Record record = Record::from_journal(json);
      // A record the journal accepts is written back as one the journal accepts again.
      (void)Record::from_journal(record.to_json()).key();
    } catch (const docsift::io::BadRecord&) {
    } catch (const docsift::Error&) {
    }
    try {
      (void)Record::from_json(json, "fuzz").to_json().dump();
    } catch (const docsift::Error&) {
    }
    try {
      (void)Summary::from_json(json, "fuzz summary.json").to_json().dump();
    } catch (const docsift::Error&) {
    }
  }
  if (const auto message = parse_message(text)) {
    try {
      if (message->type == "hello") (void)hello_of(*message);
      if (message->type == "ready") (void)ready_of(*message);
      if (message->type == "error") (void)start_error_of(*message);
      if (message->type == "image") (void)image_request_of(*message);
      if (message->type == "record") (void)encode(record_reply_of(*message));
    } catch (const docsift::Error&) {
    }
  }
  return 0;
}
