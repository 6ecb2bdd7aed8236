#include "docsift/batch/run_start.h"

#include <filesystem>
#include <system_error>

#include "docsift/batch/model_support.h"
#include "docsift/batch/ocr_reader.h"
#include "docsift/error.h"
#include "docsift/memory/allocator_env.h"

namespace docsift::batch {

void say_engine(const config::Config& config, const std::string& device_option, const Log& log) {
  if (config.extraction.engine != config::Engine::Ocr) return;
  log.info("engine",
           std::string(config.keys_given.count("extraction.engine") == 0 ? "no --model given, so "
                                                                         : "") +
               "reading pages with the OCR engine (" + ocr_readers(config) + "; the rules in " +
               config.ocr.rules + "); pass --model DIR to use a vision-language model",
           {{"engine", "ocr"}});
  if (!device_option.empty() && device_option != "cpu") {
    log.warning("ignored",
                "--device " + device_option + " is ignored: the OCR engine runs on the CPU",
                {{"option", "--device"}});
  }
}

void prepare_engine(const config::Config& config, const Log& log) {
  const bool ocr = config.extraction.engine == config::Engine::Ocr;
  if (std::error_code ec; !ocr && !std::filesystem::exists(config.model.path, ec)) {
    throw InputMissingError("--model " + config.model.path +
                            ": no such folder; pass the model folder that holds config.json and "
                            "the .safetensors weights");
  }
  if (config.memory.isolate == config::Isolation::Worker) {
    // The supervisor never touches the device: the worker sets it up. Allocator settings are
    // environment variables, which the worker inherits; their warnings are said once.
    for (const std::string& warning : memory::apply_allocator_settings(config.memory.allocator))
      log.warning("allocator", warning);
  } else if (!ocr) {
    prepare_model_device(config, &log);
  }
}

}  // namespace docsift::batch
